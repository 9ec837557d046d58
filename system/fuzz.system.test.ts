import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedRoutes } from '../services/gateway/src/app.ts';
import { OPERATIONS } from '../services/gateway/src/routes/operations.ts';
import { openApiDocument } from '../services/gateway/src/routes/shared/openapi-document.ts';
import { routeTargets, type OpenApiDocument } from './fuzz/requests.ts';
import { runFuzz, type FuzzResult } from './fuzz/run.ts';
import { startFuzzStack, type FuzzStack } from './fuzz/world.ts';

// `pnpm test` sends a few hundred requests with a fixed seed; `pnpm fuzz` (system/fuzz/
// main.ts) runs this file with FUZZ_REQUESTS and FUZZ_SEED set, and FUZZ_REPORT naming
// a file for its summary. docs/fuzzing.md says what is generated and how to replay.
const requests = Number(process.env.FUZZ_REQUESTS ?? 1000);
const seed = Number(process.env.FUZZ_SEED ?? 20_240_613);
const timeoutMs = Number(process.env.FUZZ_TIMEOUT_MS ?? 10_000);

let fuzz: FuzzStack;
beforeAll(async () => {
  fuzz = await startFuzzStack('fuzz');
}, 120_000);
afterAll(() => fuzz?.stop(), 60_000);

describe('every input has an answer in the envelope', () => {
  it(
    `answers ${requests} generated requests (seed ${seed}) without a 5xx or a hang`,
    async () => {
      const { stack, world } = fuzz;
      // The API document and the payer's pages: every route the gateway serves.
      const document = openApiDocument(stack.gateway.url, {
        operations: OPERATIONS,
      }) as unknown as OpenApiDocument;
      const routes = routeTargets(document, servedRoutes(stack.gateway.app));
      const result: FuzzResult = await runFuzz({
        baseUrl: stack.gateway.url,
        document,
        routes,
        world,
        seed,
        requests,
        timeoutMs,
        ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
        registry: stack.gateway.runtime.ops.registry,
        keepGoing: process.env.FUZZ_KEEP_GOING === '1',
      });
      if (process.env.FUZZ_REPORT) {
        const { writeFile } = await import('node:fs/promises');
        await writeFile(process.env.FUZZ_REPORT, JSON.stringify(result, null, 2));
      }
      expect(result.failure, result.failure ?? '').toBeNull();
      expect(result.stats.failed).toBe(0);
      // Only 5xx answers of bugs reported to their files' owners (fuzz/pending.ts) remain.
      expect(result.stats.atLeast500).toBe(result.stats.atLeast500Pending);
      expect(result.stats.hangs).toBe(0);
    },
    Math.max(120_000, requests * 200),
  );
});
