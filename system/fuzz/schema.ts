import fc from 'fast-check';
import { hostileJson, hostileNumber, hostileString } from './hostile.ts';

/** A JSON Schema (2020-12) node of the OpenAPI document. */
export type JsonSchema = Record<string, unknown>;

/**
 * Field values that also pass the refinements JSON Schema cannot express (an absolute
 * URL, DZD with two decimals, a future instant, a real QR token), by field name, so
 * that schema-valid bodies are mostly contract-valid too and reach the handlers.
 */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

const MAX_DEPTH = 3;

/**
 * Values valid for `schema`: every required property, optional ones present or not,
 * strings and numbers within their bounds. `$ref`s resolve in `components`;
 * recursive definitions stop growing after a few levels.
 */
export function schemaArbitrary(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  hints: Hints = {},
  depth = 0,
): fc.Arbitrary<unknown> {
  const recurse = (node: JsonSchema) => schemaArbitrary(node, components, hints, depth + 1);
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = components[name];
    if (!target) throw new Error(`unresolved ${schema.$ref}`);
    return schemaArbitrary(target, components, hints, depth + 1);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) {
    const usable =
      depth >= MAX_DEPTH ? branches.filter((branch) => !isContainer(branch)) : branches;
    return fc.oneof(...(usable.length > 0 ? usable : branches).map(recurse));
  }
  if (Array.isArray(schema.type)) {
    return fc.oneof(...(schema.type as string[]).map((type) => recurse({ ...schema, type })));
  }
  switch (schema.type) {
    case 'object':
      return objectArbitrary(schema, components, hints, depth);
    case 'array': {
      const items = (schema.items as JsonSchema | undefined) ?? {};
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.min((schema.maxItems as number | undefined) ?? 5, minLength + 5);
      return depth >= MAX_DEPTH && minLength === 0
        ? fc.constant([])
        : fc.array(recurse(items), { minLength, maxLength });
    }
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({
        min: bound(schema, 'minimum', 'exclusiveMinimum', 1, -(2 ** 31)),
        max: bound(schema, 'maximum', 'exclusiveMaximum', -1, 2 ** 31),
      });
    case 'number':
      return fc.double({
        min: bound(schema, 'minimum', 'exclusiveMinimum', 0.01, -1e9),
        max: bound(schema, 'maximum', 'exclusiveMaximum', -0.01, 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      // `{}` (unrepresentable refinements): anything.
      return depth >= MAX_DEPTH ? fc.string({ maxLength: 8 }) : hostileJson;
  }
}

const isContainer = (schema: JsonSchema) =>
  schema.type === 'object' || schema.type === 'array' || typeof schema.$ref === 'string';

/** A numeric bound of the schema, within what a test can usefully send. */
function bound(
  schema: JsonSchema,
  inclusive: string,
  exclusive: string,
  step: number,
  fallback: number,
): number {
  if (typeof schema[inclusive] === 'number') return clamp(schema[inclusive]);
  if (typeof schema[exclusive] === 'number') return clamp(schema[exclusive] + step);
  return fallback;
}

const clamp = (value: number) => Math.max(-(2 ** 40), Math.min(2 ** 40, value));

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 40, minLength + 40);
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
    default:
      return fc.string({ minLength, maxLength });
  }
}

function objectArbitrary(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  hints: Hints,
  depth: number,
): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const names = Object.keys(properties);
  if (names.length === 0) {
    const values =
      typeof schema.additionalProperties === 'object'
        ? schemaArbitrary(schema.additionalProperties as JsonSchema, components, hints, depth + 1)
        : hostileJson;
    return depth >= MAX_DEPTH
      ? fc.constant({})
      : fc.dictionary(fc.string({ maxLength: 10 }), values, { maxKeys: 3 });
  }
  const fields = Object.fromEntries(
    names.map((name) => [
      name,
      hints[name] ?? schemaArbitrary(properties[name]!, components, hints, depth + 1),
    ]),
  );
  return fc.record(fields, { requiredKeys: required.filter((name) => name in fields) });
}

/**
 * Bodies one step away from valid: a required field dropped, a field of another type,
 * hostile text or a number at the edge in one field, an unknown field, null where the
 * field is required.
 */
export function nearValid(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      valid,
      fc.nat(),
      fc.oneof(
        fc.constant<Mutation>({ kind: 'drop' }),
        fc.constant<Mutation>({ kind: 'null' }),
        hostileString.map<Mutation>((value) => ({ kind: 'set', value })),
        hostileNumber.map<Mutation>((value) => ({ kind: 'set', value })),
        hostileJson.map<Mutation>((value) => ({ kind: 'set', value })),
        fc.constantFrom<Mutation>(
          { kind: 'set', value: [] },
          { kind: 'set', value: {} },
          { kind: 'set', value: true },
          { kind: 'set', value: '' },
          { kind: 'stringify' },
        ),
        fc
          .tuple(hostileString, hostileJson)
          .map<Mutation>(([key, value]) => ({ kind: 'add', key, value })),
      ),
    )
    .map(([value, pick, mutation]) => mutate(value, pick, mutation));
}

type Mutation =
  | { kind: 'drop' }
  | { kind: 'null' }
  | { kind: 'stringify' }
  | { kind: 'set'; value: unknown }
  | { kind: 'add'; key: string; value: unknown };

function mutate(value: unknown, pick: number, mutation: Mutation): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...value };
  const keys = Object.keys(copy);
  if (mutation.kind === 'add' || keys.length === 0) {
    const key = mutation.kind === 'add' ? mutation.key : 'unexpected';
    // defineProperty: a key named __proto__ becomes a real key, as JSON.parse makes it.
    Object.defineProperty(copy, key, {
      value: mutation.kind === 'add' ? mutation.value : 1,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return copy;
  }
  const key = keys[pick % keys.length]!;
  if (mutation.kind === 'drop') delete copy[key];
  else if (mutation.kind === 'null') copy[key] = null;
  else if (mutation.kind === 'stringify') copy[key] = JSON.stringify(copy[key]);
  else copy[key] = mutation.value;
  return copy;
}

/** JSON text of an object with one key written twice, the second time with `other`. */
export function withDuplicateKey(value: unknown, pick: number, other: unknown): string {
  const text = JSON.stringify(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return text;
  const keys = Object.keys(value);
  if (keys.length === 0) return text;
  const key = keys[pick % keys.length]!;
  return `${text.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(other) ?? 'null'}}`;
}
