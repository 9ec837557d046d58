import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyPages } from '../src/pages/api-key-pages.ts';
import type { DashboardDeps } from '../src/settings.ts';
import { closePages, pagesHarness } from './pages-harness.ts';

afterEach(closePages);

describe('the label of a new API key', () => {
  it('is refused with a 400 when it holds a bidirectional control, and no key is made', async () => {
    const inserted: unknown[] = [];
    const deps = {
      accounts: {
        listKeysOf: () => Promise.resolve([]),
        lastUsesOf: () => Promise.resolve(new Map()),
        insertKey: (key: unknown) => {
          inserted.push(key);
          return Promise.reject(new Error('no key may be made'));
        },
      },
    };
    const h = await pagesHarness({
      language: 'fr',
      answers: {},
      deps,
      register: (kit) => apiKeyPages(kit, deps as unknown as DashboardDeps),
    });
    for (const label of ['Caisse \u202efdp.exe', 'Caisse \u20661\u2069']) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/dashboard/api-keys',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: 'tok', label }).toString(),
      });
      expect(response.statusCode, label).toBe(400);
      expect(response.body).toContain(
        'Le libellé ne doit pas contenir de caractères de contrôle bidirectionnel',
      );
    }
    expect(inserted).toEqual([]);
  });
});
