import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// docker-compose.yml against the Compose Specification's JSON schema (the copy the
// dclint package ships), offline: no Docker engine runs here to `docker compose config`.
const require = createRequire(import.meta.url);
const schemaFile = join(
  dirname(require.resolve('dclint/package.json')),
  'schemas/compose.schema.json',
);
const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
// Ajv 8 knows the draft the schema names only by its default meta-schema: leave it out.
delete schema.$schema;
const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);
const composeFile = new URL('../docker-compose.yml', import.meta.url);
const problems = (document: unknown) => {
  validate(document);
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
};

describe('docker-compose.yml against the Compose Specification', () => {
  it('validates', () => {
    expect(problems(parse(readFileSync(composeFile, 'utf8'), { merge: true }))).toEqual([]);
  });

  it('is a check that refuses a misspelled key and a wrong condition', () => {
    const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as {
      services: Record<string, Record<string, unknown>>;
    };
    const gateway = compose.services.gateway!;
    const broken = structuredClone(compose);
    broken.services.gateway = { ...gateway, stop_grace_periode: '30s' };
    expect(problems(broken).join()).toContain('stop_grace_periode');
    const wrongCondition = structuredClone(compose);
    wrongCondition.services.gateway = {
      ...gateway,
      depends_on: { nats: { condition: 'healthy' } },
    };
    expect(problems(wrongCondition).join()).toContain('allowed values');
  });
});
