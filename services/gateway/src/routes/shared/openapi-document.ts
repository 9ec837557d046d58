import {
  ErrorCatalog,
  PartnerError,
  PartnerProduct,
  RateLimitError,
  StandardError,
  ValidationList,
  type ErrorCode,
} from '@dzpay/contracts';
import { WebhookEvent } from '@dzpay/partner-sdk';
import { z } from 'zod';
import { errorExample, examples, rateLimitedExample } from './openapi-examples.ts';
import type { OperationSpec, ResponseSpec } from './operation-spec.ts';
import { API_OPERATIONS } from '../operations.ts';

type Json = Record<string, unknown>;

/**
 * Shared definitions zod puts under `$defs` (recursive schemas),
 * moved to components.schemas so that their `$ref`s resolve inside the document.
 */
const sharedDefs = new Map<string, { name: string; schema: Json }>();

/**
 * zod's `z.json()` (any JSON value: the values of `metadata`) is a recursive union that
 * generators cannot type (openapi-typescript's alias of it refers to itself: TS2502), so
 * the document says "any value" instead: `metadata` is then a plain JSON object type.
 */
const ANY_JSON_VALUE: Json = { description: 'any JSON value' };

function isJsonValueDefinition(definition: unknown): boolean {
  const anyOf = (definition as { anyOf?: { type?: string }[] }).anyOf;
  const types = new Set(anyOf?.map((member) => member.type));
  return (
    ['string', 'number', 'boolean', 'null', 'array', 'object'].every((type) => types.has(type)) &&
    types.size === 6
  );
}

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a contracts schema, as a body is sent. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $defs, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    // Refinements (an absolute URL, two decimals at most) cannot be written in JSON
    // Schema; the descriptions and examples say them instead.
    unrepresentable: 'any',
  });
  // The document declares the dialect once (jsonSchemaDialect).
  delete json.$schema;
  if ($defs === undefined) return json;
  // The same definition (zod's JSON type, say) comes back from every schema using it.
  const names = new Map<string, string>();
  const jsonValues = new Set<string>();
  for (const [local, definition] of Object.entries($defs)) {
    if (isJsonValueDefinition(definition)) {
      jsonValues.add(local);
      continue;
    }
    const key = JSON.stringify(definition);
    const known = sharedDefs.get(key)?.name ?? `Shared${sharedDefs.size + 1}`;
    names.set(local, known);
    if (!sharedDefs.has(key)) sharedDefs.set(key, { name: known, schema: {} });
  }
  const relink = (value: unknown): Json => {
    let text = JSON.stringify(value);
    for (const local of jsonValues) {
      text = text.replaceAll(`{"$ref":"#/$defs/${local}"}`, JSON.stringify(ANY_JSON_VALUE));
    }
    for (const [local, name] of names) {
      text = text.replaceAll(`"#/$defs/${local}"`, `"#/components/schemas/${name}"`);
    }
    return JSON.parse(text) as Json;
  };
  for (const [local, definition] of Object.entries($defs)) {
    if (jsonValues.has(local)) continue;
    sharedDefs.get(JSON.stringify(definition))!.schema = relink(definition);
  }
  return relink(json);
}

const jsonContent = (schema: Json, example: unknown) => ({
  'application/json': { schema, example },
});

/** What a deployment enforces, as its 429 examples say: requests a minute per key. */
export interface DocumentedLimits {
  /** RATE_LIMIT_PER_MINUTE */
  api: number;
  /** STATUS_RATE_LIMIT_PER_MINUTE */
  status: number;
}

/** The gateway's defaults (services/gateway/src/config.ts). */
const DEFAULT_LIMITS: DocumentedLimits = { api: 600, status: 60 };

/** The headers @fastify/rate-limit sends with every answer of a limited route. */
const RATE_LIMIT_HEADERS = (perMinute: number): Json => ({
  'x-ratelimit-limit': {
    description: 'requests a minute this key may send',
    schema: { type: 'integer', example: perMinute },
  },
  'x-ratelimit-remaining': {
    description: 'what is left of them',
    schema: { type: 'integer' },
  },
  'x-ratelimit-reset': {
    description: 'seconds until the window starts again',
    schema: { type: 'integer' },
  },
});

/** The header a 2xx answered from an Idempotency-Key's stored answer carries. */
const REPLAYED_HEADER: Json = {
  'idempotent-replayed': {
    description:
      '`true` when this is the stored answer of an earlier request with the same Idempotency-Key (nothing was done again); absent otherwise',
    schema: { type: 'string', enum: ['true'] },
  },
};

function responseOf(spec: ResponseSpec, limits: DocumentedLimits): Json {
  const { description } = spec;
  if ('json' in spec)
    return { description, content: jsonContent(schemaOf(spec.json, 'output'), spec.example) };
  if ('errors' in spec) {
    return {
      description,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/StandardError' },
          examples: Object.fromEntries(
            spec.errors.map((code) => [code, { value: errorExample(code) }]),
          ),
        },
      },
    };
  }
  if ('shape' in spec && spec.shape === 'rate-limit') {
    const perMinute = spec.limit === 'status' ? limits.status : limits.api;
    return {
      description,
      headers: {
        ...RATE_LIMIT_HEADERS(perMinute),
        'retry-after': { description: 'seconds to wait', schema: { type: 'integer' } },
      },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/RateLimitError' },
          example: rateLimitedExample(perMinute),
        },
      },
    };
  }
  if ('shape' in spec) {
    return {
      description,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ValidationList' },
          example: examples.validationList,
        },
      },
    };
  }
  if ('html' in spec)
    return { description, content: { 'text/html': { schema: { type: 'string' } } } };
  if ('media' in spec) {
    return {
      description,
      content: Object.fromEntries(
        spec.media.map((type) => [
          type,
          { schema: { type: 'string', ...(type === 'image/png' ? { format: 'binary' } : {}) } },
        ]),
      ),
    };
  }
  if ('redirect' in spec) {
    return { description, headers: { location: { schema: { type: 'string' } } } };
  }
  return { description };
}

/**
 * Formats a query's refinements hold that JSON Schema cannot say by itself (createdFrom
 * takes a date or a date-time: no one format says both).
 */
const QUERY_FORMATS: Readonly<Record<string, Json>> = {
  from: { format: 'date' },
  to: { format: 'date' },
};

/**
 * A query parameter's schema, from the schema its route parses with: a query string's
 * values are strings, but `limit=5` is read as the integer 5 and `format` as one of its
 * values, and a generated client types them so.
 */
function queryParameterSchema(spec: OperationSpec, name: string): Json {
  const properties = spec.querySchema
    ? ((z.toJSONSchema(spec.querySchema, { io: 'output', unrepresentable: 'any' }).properties ??
        {}) as Record<string, Json>)
    : {};
  const schema = properties[name] ?? {};
  return Object.keys(schema).length > 0
    ? { ...schema, ...QUERY_FORMATS[name] }
    : { type: 'string', ...QUERY_FORMATS[name] };
}

function operationOf(spec: OperationSpec, limits: DocumentedLimits): Json {
  const parameters = [
    ...Object.entries(spec.params ?? {}).map(([name, description]) => ({
      name,
      in: 'path',
      required: true,
      description,
      schema: { type: 'string' },
    })),
    ...Object.entries(spec.query ?? {}).map(([name, description]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: queryParameterSchema(spec, name),
    })),
    ...(spec.idempotent
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Up to 255 characters. The same key and body within 24 h answer the first result again; the same key with another body is 409 IDEMPOTENCY409_KEY_REUSED.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ]
      : []),
  ];
  const body = spec.body;
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    security: spec.apiKey ? [{ apiKey: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined
      ? {}
      : 'form' in body
        ? {
            requestBody: {
              description: body.form,
              content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } },
            },
          }
        : {
            requestBody: {
              required: body.required ?? true,
              content: jsonContent(schemaOf(body.schema, 'input'), body.example),
            },
          }),
    responses: Object.fromEntries(
      Object.entries(spec.responses).map(([status, response]) => {
        const described = responseOf(response, limits);
        const success = Number(status) >= 200 && Number(status) < 300;
        if (!success || !spec.idempotent) return [status, described];
        const headers = { ...(described.headers as Json | undefined), ...REPLAYED_HEADER };
        return [status, { ...described, headers }];
      }),
    ),
  };
}

/** What each error code means, for the catalog in the document's description. */
function errorCatalogTable(): string {
  const rows = (Object.keys(ErrorCatalog) as ErrorCode[]).map(
    (code) => `| \`${code}\` | ${ErrorCatalog[code]} | ${errorExample(code).message} |`,
  );
  return ['| errorCode | HTTP | example message |', '| --- | --- | --- |', ...rows].join('\n');
}

/**
 * The OpenAPI 3.1 document of dzpay's public HTTP interface, generated from the
 * contracts' zod schemas: every API route the gateway serves, every error code with an
 * example, and the two endpoints partners host (as `webhooks`). The payer's pages are
 * browser pages, not API (they answer HTML and redirects, and a client generator has
 * nothing to do with them): docs/payments.md describes them; `operations` adds them for
 * tools that walk every route (the fuzzer).
 */
export function openApiDocument(
  serverUrl: string,
  {
    operations = API_OPERATIONS,
    limits = DEFAULT_LIMITS,
  }: { operations?: readonly OperationSpec[]; limits?: DocumentedLimits } = {},
): Json {
  const paths: Record<string, Json> = {};
  for (const spec of operations) {
    paths[spec.path] = { ...paths[spec.path], [spec.method]: operationOf(spec, limits) };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'dzpay',
      version: '1.0.0',
      // As the SDKs' LICENSE files.
      license: { name: 'MIT', identifier: 'MIT' },
      summary: 'Payments in Algerian dinar: hosted checkout, static QR codes, product references.',
      description: [
        'Money in the payments API is integer centimes; QR amounts and status amounts are DZD.',
        'Errors travel in the standard envelope; branch on `errorCode`, not on `message`.',
        '',
        errorCatalogTable(),
      ].join('\n'),
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: 'Payments', description: 'Hosted-checkout payments (`pk_test_` / `pk_live_` keys)' },
      { name: 'Receipts', description: 'Receipt emails of succeeded payments' },
      { name: 'Webhooks', description: 'What dzpay sent to the partner server, and replays' },
      {
        name: 'Webhook settings',
        description: 'Where webhooks go, which kinds, the signing secret, a test event',
      },
      { name: 'Events', description: 'Every event of the merchant, and replays of their delivery' },
      { name: 'Reports', description: 'Daily sums of successes, refunds and fees' },
      {
        name: 'Payment links',
        description: 'Links that take payments without code, and their pages',
      },
      { name: 'Balance', description: 'Balance, payouts and monthly statements' },
      {
        name: 'Audit',
        description: 'Who refunded, cancelled, issued a key, changed webhooks or the team',
      },
      { name: 'QR codes', description: "A merchant's static QR codes and their images" },
      { name: 'QR configuration', description: 'Amounts of static QR codes' },
      { name: 'Status', description: 'Lock and payment status of product references' },
      {
        name: 'Partner server',
        description: "What dzpay sends to a partner's server: its webhooks and product lookups",
      },
    ],
    paths,
    webhooks: {
      paymentOutcome: {
        post: {
          operationId: 'paymentOutcomeWebhook',
          tags: ['Partner server'],
          security: [{ webhookSignature: [] }],
          summary: 'POST {API_URL}/webhooks/platform on the partner server',
          description:
            'Signed with X-Signature (hex HMAC-SHA256 of the raw body followed by X-Timestamp) and the Standard Webhooks headers; retried until the partner answers 2xx `{"success": true}` (docs/webhooks.md).',
          requestBody: {
            required: true,
            content: jsonContent(schemaOf(WebhookEvent, 'output'), examples.webhookEvent),
          },
          responses: {
            200: {
              description: 'delivered',
              content: jsonContent(
                { type: 'object', properties: { success: { const: true } }, required: ['success'] },
                { success: true },
              ),
            },
          },
        },
      },
      productLookup: {
        get: {
          operationId: 'productLookup',
          tags: ['Partner server'],
          security: [{ partnerSecret: [] }],
          summary: 'GET {API_URL}/{reference} on the partner server',
          description:
            'dzpay looks a product reference up before a payer pays it (docs/agency.md).',
          responses: {
            200: {
              description: 'the product',
              content: jsonContent(schemaOf(PartnerProduct, 'output'), examples.product),
            },
            404: {
              description:
                'NOT_FOUND, ALREADY_PAID (409) or SERVICE_UNAVAILABLE (503), in the partner error shape',
              content: jsonContent(schemaOf(PartnerError, 'output'), examples.partnerError),
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'the merchant API key',
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description:
            "How a partner knows a webhook is dzpay's: the hex HMAC-SHA256, under the signing secret, of the raw body followed by X-Timestamp (and the Standard Webhooks `webhook-signature`); the partner SDKs check both (docs/webhooks.md)",
        },
        partnerSecret: {
          type: 'http',
          scheme: 'bearer',
          description:
            "The partner's API secret, which dzpay sends as `Authorization: Bearer` on product lookups, and on webhooks only to the origin of the partner's API_URL (docs/webhooks.md)",
        },
      },
      schemas: {
        StandardError: schemaOf(StandardError, 'output'),
        ValidationList: schemaOf(ValidationList, 'output'),
        RateLimitError: schemaOf(RateLimitError, 'output'),
        ...Object.fromEntries([...sharedDefs.values()].map(({ name, schema }) => [name, schema])),
      },
    },
  };
}
