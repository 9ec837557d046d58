import type { Sql } from '@dzpay/platform';
import { apiKeysTable } from './api-keys.ts';
import { auditLog } from './audit-log.ts';
import { merchantsTable } from './merchants.ts';
import { partnerEndpointsTable } from './partner-endpoints.ts';

/**
 * The accounts schema as one object: merchants, their API keys and partner endpoints, the
 * audit log, each table written by its own adapter (merchants.ts, api-keys.ts,
 * partner-endpoints.ts, audit-log.ts).
 */
export function accountsRepository(sql: Sql) {
  return {
    ...merchantsTable(sql),
    ...apiKeysTable(sql),
    ...partnerEndpointsTable(sql),
    ...auditLog(sql),
  };
}

export type AccountsRepository = ReturnType<typeof accountsRepository>;
