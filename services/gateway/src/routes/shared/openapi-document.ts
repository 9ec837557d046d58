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
import { errorExample, examples } from './openapi-examples.ts';
import type { OperationSpec, ResponseSpec } from './operation-spec.ts';
import { OPERATIONS } from '../operations.ts';

type Json = Record<string, unknown>;

/**
 * Shared definitions zod puts under `$defs` (recursive schemas such as JSON metadata),
 * moved to components.schemas so that their `$ref`s resolve inside the document.
 */
const sharedDefs = new Map<string, { name: string; schema: Json }>();

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
  for (const [local, definition] of Object.entries($defs)) {
    const key = JSON.stringify(definition);
    const known = sharedDefs.get(key)?.name ?? `Shared${sharedDefs.size + 1}`;
    names.set(local, known);
    if (!sharedDefs.has(key)) sharedDefs.set(key, { name: known, schema: {} });
  }
  const relink = (value: unknown): Json => {
    let text = JSON.stringify(value);
    for (const [local, name] of names) {
      text = text.replaceAll(`"#/$defs/${local}"`, `"#/components/schemas/${name}"`);
    }
    return JSON.parse(text) as Json;
  };
  for (const definition of Object.values($defs)) {
    sharedDefs.get(JSON.stringify(definition))!.schema = relink(definition);
  }
  return relink(json);
}

const jsonContent = (schema: Json, example: unknown) => ({
  'application/json': { schema, example },
});

function responseOf(spec: ResponseSpec): Json {
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
  if ('shape' in spec) {
    const [ref, example] =
      spec.shape === 'validation-list'
        ? ['ValidationList', examples.validationList]
        : ['RateLimitError', examples.rateLimited];
    return {
      description,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` }, example } },
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

function operationOf(spec: OperationSpec): Json {
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
      schema: { type: 'string' },
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
      Object.entries(spec.responses).map(([status, response]) => [status, responseOf(response)]),
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
 * contracts' zod schemas: every route the gateway serves, every error code with an
 * example, and the two endpoints partners host (as `webhooks` and a lookup path note).
 */
export function openApiDocument(serverUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const spec of OPERATIONS) {
    paths[spec.path] = { ...paths[spec.path], [spec.method]: operationOf(spec) };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'dzpay',
      version: '1.0.0',
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
      { name: 'Payer pages', description: 'HTML pages payers open (ar, fr, en); no key' },
    ],
    paths,
    webhooks: {
      paymentOutcome: {
        post: {
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
