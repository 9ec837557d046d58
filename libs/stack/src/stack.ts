import { fileURLToPath } from 'node:url';
import type { ServiceName } from './services.ts';

// One description of the stack, read by `pnpm start`, `pnpm bench`, the system tests and
// the campaign: which services, in which order, how they are linked, their migrations.

export { SERVICES, type ServiceName } from './services.ts';

/** The card network's sandbox: outside dzpay, started first, never replicated. */
export const SANDBOX = 'cardnet-sandbox';

/** The main.ts a service (or the sandbox) runs from. */
export function entryOf(name: ServiceName | typeof SANDBOX): string {
  return fileURLToPath(new URL(`../../../services/${name}/src/main.ts`, import.meta.url));
}

/** The ops port (/healthz, /readyz, /metrics) each service has on a developer's machine. */
export const DEFAULT_OPS_PORTS: Record<ServiceName, number> = {
  gateway: 9101,
  'qr-config': 9102,
  payments: 9103,
  status: 9104,
  'webhook-dispatcher': 9105,
  receipts: 9106,
  dashboard: 9107,
};

/** What ties one stack together: how its services reach the gateway, the card network and each other. */
export interface StackLinks {
  /** The gateway's public base URL: payers' pages and the card network's return URLs. */
  gatewayUrl: string;
  /** The card network (the sandbox) payments calls for test keys. */
  sandboxUrl: string;
  /** Seals partner secrets: the CLI and the gateway seal, the gateway, payments and the dispatcher open. */
  secretsKey: string;
  /** The mail server receipts go to. */
  smtp?: { host: string; port: number };
}

/** The variables a service needs beyond the common ones (database, NATS, Redis, prefixes). */
export function linkEnv(name: ServiceName, links: StackLinks): Record<string, string> {
  switch (name) {
    case 'payments':
      return {
        PUBLIC_BASE_URL: links.gatewayUrl,
        CARDNET_TEST_URL: links.sandboxUrl,
        SECRETS_KEY: links.secretsKey,
        // Partners of a developer's stack listen on this machine (docs/partner-requests.md).
        PARTNER_ALLOW_PRIVATE_TARGETS: 'true',
      };
    case 'gateway':
    case 'dashboard':
      // The same mail server as receipts: password reset links.
      return {
        PUBLIC_BASE_URL: links.gatewayUrl,
        SECRETS_KEY: links.secretsKey,
        ...(links.smtp ? { SMTP_HOST: links.smtp.host, SMTP_PORT: String(links.smtp.port) } : {}),
      };
    case 'webhook-dispatcher':
      return { SECRETS_KEY: links.secretsKey, PARTNER_ALLOW_PRIVATE_TARGETS: 'true' };
    case 'receipts':
      return links.smtp ? { SMTP_HOST: links.smtp.host, SMTP_PORT: String(links.smtp.port) } : {};
    default:
      return {};
  }
}

// Every service's migrations, found by convention: what `dzpay migrate` runs too.
export {
  migrateAll,
  migrateService,
  migrationsOf,
  runtimeSchemaOf,
  serviceMigrations,
  type SchemaMigrations,
} from './migrations.ts';
