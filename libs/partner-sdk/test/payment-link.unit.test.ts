import { describe, expect, it } from 'vitest';
import { paymentLinkOf } from '../src/index.ts';

describe('paymentLinkOf', () => {
  it('reads the link and the payment’s number from a link payment’s reference', () => {
    expect(paymentLinkOf('link-5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f-12')).toEqual({
      paymentLinkId: '5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f',
      number: 12,
    });
  });

  it('is null for every other reference', () => {
    for (const reference of [
      'BOOK-42',
      'link-5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f',
      'link-5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f-0',
      'link-5F0C7A8E-3D2B-4C1A-9E8F-7A6B5C4D3E2F-1',
      'xlink-5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f-1',
    ])
      expect(paymentLinkOf(reference), reference).toBeNull();
  });
});
