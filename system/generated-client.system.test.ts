import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFuzzStack, type FuzzStack } from './fuzz/world.ts';

// A merchant developer's route to dzpay without an SDK: generate types from the served
// OpenAPI document with openapi-typescript, write a program on openapi-fetch, compile it
// with `tsc --strict`, run it. The program (generated-client/every-operation.ts) calls
// every operation an API key may call; this test checks that it compiles on the types
// alone and that every answer is one the document declares for its operation.
const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const source = new URL('./generated-client/', import.meta.url).pathname;
// Under the repository (ignored by git and the linters) so that the program resolves
// openapi-fetch from the workspace's node_modules, as a developer's project would.
const folder = `${root}test-artifacts/generated-client/${randomUUID()}/`;

let fuzz: FuzzStack;
let document: {
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; security?: unknown[]; responses: Record<string, unknown> }
    >
  >;
};

beforeAll(async () => {
  fuzz = await startFuzzStack('generated-client');
  document = (await (await fuzz.stack.get('/docs/json')).json()) as typeof document;
  mkdirSync(folder, { recursive: true });
}, 180_000);
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await fuzz?.stop();
}, 60_000);

/** Every operation of the document an API key calls, with the statuses it declares. */
function keyedOperations(): Map<string, string[]> {
  const operations = new Map<string, string[]>();
  for (const methods of Object.values(document.paths)) {
    for (const operation of Object.values(methods)) {
      if ((operation.security ?? []).length === 0) continue;
      operations.set(operation.operationId, Object.keys(operation.responses));
    }
  }
  return operations;
}

describe('a client generated from the OpenAPI document', () => {
  it('compiles under tsc --strict and calls every keyed operation, each answered as documented', async () => {
    const types = astToString(await openapiTS(document as never));
    writeFileSync(`${folder}openapi.ts`, types);
    copyFileSync(`${source}every-operation.ts`, `${folder}every-operation.ts`);
    copyFileSync(`${source}tsconfig.json`, `${folder}tsconfig.json`);

    const tsc = await run(`${root}node_modules/.bin/tsc`, ['-p', `${folder}tsconfig.json`]).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed', failed: true }),
    );
    expect(tsc.stdout, 'tsc --strict on the program and the generated types').toBe('');

    const { world, stack } = fuzz;
    const program = await run(process.execPath, [`${folder}every-operation.ts`], {
      env: {
        ...process.env,
        DZPAY_WORLD: JSON.stringify({
          baseUrl: stack.gateway.url,
          key: world.keys.test,
          qrToken: world.qrTokens[0],
          paidPaymentId: world.paymentIds[1],
          deliveryId: world.deliveryIds[0],
          reference: 'BOOK-PAID-1',
        }),
      },
    });
    const answered = JSON.parse(program.stdout) as { operationId: string; status: number }[];

    const declared = keyedOperations();
    expect(answered.map(({ operationId }) => operationId).sort()).toEqual(
      [...declared.keys()].sort(),
    );
    for (const { operationId, status } of answered) {
      expect(declared.get(operationId), `${operationId} answered ${status}`).toContain(
        String(status),
      );
    }
    // A world where each of them can succeed: every call succeeded.
    const failed = answered.filter(({ status }) => status >= 300);
    expect(failed).toEqual([]);
  }, 180_000);
});
