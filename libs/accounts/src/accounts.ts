import type { Sql } from '@dzpay/platform';
import { apiKeysTable } from './api-keys.ts';
import { merchantsTable } from './merchants.ts';
import { partnerEndpointsTable } from './partner-endpoints.ts';

/**
 * The accounts schema as one object: merchants, their API keys and partner endpoints,
 * each table written by its own adapter (merchants.ts, api-keys.ts, partner-endpoints.ts).
 */
export function accountsRepository(sql: Sql) {
  return { ...merchantsTable(sql), ...apiKeysTable(sql), ...partnerEndpointsTable(sql) };
}

export type AccountsRepository = ReturnType<typeof accountsRepository>;
