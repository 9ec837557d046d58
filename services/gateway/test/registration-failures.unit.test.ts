import { describe, expect, it } from 'vitest';
import { parseRegisterPayment } from '../src/domain/payment-request.ts';

describe('POST /api/v1/payments refuses a reference with bidirectional controls', () => {
  it('in details.failures of VALIDATION400_BAD_REQUEST, named by its field', () => {
    // Shown as "Facture exe.pdf" in a merchant's dashboard or export if it were taken.
    const body = { amount: 250_000, currency: 'DZD', reference: 'Facture \u202efdp.exe' };
    for (const mode of ['test', 'live'] as const) {
      expect(parseRegisterPayment(body, mode)).toEqual({
        ok: false,
        error: [
          {
            field: 'reference',
            message: 'reference must not contain bidirectional control characters',
          },
        ],
      });
    }
  });
});
