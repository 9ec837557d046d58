import { Rpc, type MerchantScope, type WebhookTestResult } from '@dzpay/contracts';
import {
  AppError,
  requestRpc,
  sealSecret,
  signingSecretOwner,
  type NatsConnection,
} from '@dzpay/platform';
import type { PartnerEndpointsTable, WebhookSettingsRow } from './partner-endpoints.ts';
import { newSigningSecret, rotateSigningSecret } from './signing-secret.ts';
import { effectiveWebhookUrl } from './webhook-url.ts';

/** A test send waits for one attempt (WEBHOOK_TIMEOUT_MS, 15 s by default) and a little more. */
const TEST_SEND_TIMEOUT_MS = 20_000;

export interface WebhookSettingsDeps {
  accounts: PartnerEndpointsTable;
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
  /** Seals the signing secrets made here; without it none can be made (503). */
  secretsKey?: Buffer;
  clock?: () => Date;
}

/**
 * What the merchant API and the dashboard do with webhook settings, written once: save
 * the URL and kinds (a first signing secret made on the way, shown once), rotate the
 * secret, send a test event. Refusals are AppErrors: SERVICE503_UNAVAILABLE without
 * SECRETS_KEY, WEBHOOK409_ENDPOINT_MISSING without anywhere to send.
 */
export function webhookSettings(deps: WebhookSettingsDeps) {
  const clock = deps.clock ?? (() => new Date());

  function sealed(scope: MerchantScope, secret: string): Buffer {
    if (!deps.secretsKey) {
      throw new AppError(
        'SERVICE503_UNAVAILABLE',
        'webhook signing secrets cannot be stored here',
        {
          details: { reason: 'SECRETS_KEY not set on the gateway' },
        },
      );
    }
    return sealSecret(secret, deps.secretsKey, signingSecretOwner(scope.merchantId, scope.mode));
  }

  return {
    read: (scope: MerchantScope) => deps.accounts.findWebhookSettings(scope.merchantId, scope.mode),

    /**
     * The new settings, the signing secret when this save made the first one, and whether
     * the save changed nothing (the same settings saved again: not audited again).
     */
    async save(
      scope: MerchantScope,
      patch: { url?: string | null; events?: readonly string[] },
    ): Promise<{ settings: WebhookSettingsRow; signingSecret: string | null; unchanged: boolean }> {
      const secret = newSigningSecret();
      const { settings, secretCreated, unchanged } = await deps.accounts.setWebhookSettings(
        scope.merchantId,
        scope.mode,
        patch,
        sealed(scope, secret),
      );
      return { settings, signingSecret: secretCreated ? secret : null, unchanged };
    },

    /** A new signing secret (shown once); the previous one signs on for the grace period. */
    async rotate(scope: MerchantScope, graceHours: number) {
      const rotation = rotateSigningSecret(clock(), graceHours);
      const current = await deps.accounts.findWebhookSettings(scope.merchantId, scope.mode);
      if (!current?.hasSigningSecret) throw endpointMissing();
      const found = await deps.accounts.setSigningSecret(
        scope.merchantId,
        scope.mode,
        sealed(scope, rotation.secret),
        rotation.previousValidUntil,
      );
      if (!found) throw endpointMissing();
      const after = await deps.accounts.findWebhookSettings(scope.merchantId, scope.mode);
      return {
        signingSecret: rotation.secret,
        createdAt: after?.signingSecretCreatedAt ?? clock(),
        previousValidUntil: rotation.previousValidUntil,
      };
    },

    /** A signed `webhook.test` sent now by the dispatcher, and what the endpoint answered. */
    async sendTest(scope: MerchantScope): Promise<WebhookTestResult> {
      const row = await deps.accounts.findWebhookSettings(scope.merchantId, scope.mode);
      if (row === null || effectiveWebhookUrl(row) === null) throw endpointMissing();
      return requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.webhookTestSend,
        // The dispatcher reads the directory until it holds these settings (just changed?).
        { ...scope, minVersion: row.version },
        // It waits for the partner: up to the webhook timeout, past the usual service time.
        { timeoutMs: Math.max(deps.serviceTimeoutMs, TEST_SEND_TIMEOUT_MS) },
      );
    },
  };
}

function endpointMissing(): AppError {
  return new AppError(
    'WEBHOOK409_ENDPOINT_MISSING',
    'no webhook endpoint: set a URL with PUT /api/v1/webhooks/settings first',
  );
}
