import { partnerUrl } from '@dzpay/platform';
import type { WebhookSettingsRow } from './partner-endpoints.ts';

/** Where webhooks go: the chosen URL, else `{API_URL}/webhooks/platform`, else nowhere. */
export function effectiveWebhookUrl(row: WebhookSettingsRow): string | null {
  if (row.webhookUrl) return row.webhookUrl;
  return row.apiUrl ? partnerUrl(row.apiUrl, 'webhooks', 'platform').href : null;
}
