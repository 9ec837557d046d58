// The accounts schema (migrated by the gateway, which owns it), one adapter per table,
// and the rules about what is stored there: read and written by the gateway, the
// dashboard and the admin CLI alike.

// The schema as one object, and its tables.
export { accountsRepository, type AccountsRepository } from './accounts.ts';
export {
  merchantsTable,
  type Merchant,
  type MerchantTermsPatch,
  type MerchantsTable,
} from './merchants.ts';
export {
  apiKeysTable,
  keyModesOf,
  mayHoldKey,
  type ApiKeyRecord,
  type ApiKeysTable,
  type KeyOwner,
  type ListedApiKey,
} from './api-keys.ts';
export {
  partnerEndpointsTable,
  type PartnerEndpointRow,
  type PartnerEndpointsTable,
  type WebhookSettingsRow,
} from './partner-endpoints.ts';
export {
  DashboardRoles,
  dashboardUsers,
  isDashboardRole,
  type ActiveUser,
  type DashboardRole,
  type DashboardUser,
  type DashboardUsers,
  type InviteView,
  type LoginCandidate,
  type PendingInvite,
  type TeamChangeProblem,
} from './dashboard-users.ts';

// Who did what: refunds, cancels, keys, webhook settings, payouts, team changes.
export {
  AuditActions,
  AuditFamilies,
  auditLog,
  type AuditAction,
  type AuditActor,
  type AuditEvent,
  type AuditEventInput,
  type AuditFamily,
  type AuditLog,
  type AuditPageQuery,
} from './audit-log.ts';

// API keys: made once, stored as a hash, told apart by their prefix.
export { hashApiKey, issueApiKey, modeOfApiKey, sameHash, type IssuedKey } from './api-key.ts';

// Webhook signing secrets and the settings the API and the dashboard both change.
export {
  DEFAULT_GRACE_HOURS,
  firstSigningSecret,
  graceHoursProblem,
  newSigningSecret,
  rotateSigningSecret,
} from './signing-secret.ts';
export { webhookSettings, type WebhookSettingsDeps } from './webhook-settings.ts';
export { effectiveWebhookUrl } from './webhook-url.ts';

// Dashboard users' passwords and emails.
export {
  cleanEmail,
  hashPassword,
  passwordProblem,
  PASSWORD_MAX,
  PASSWORD_MIN,
  verifyPassword,
} from './passwords.ts';

// A forgotten password: single-use reset tokens, stored as hashes.
export {
  passwordResets,
  type PasswordResets,
  type ResetCandidate,
  type ResetDone,
  type StoredReset,
} from './password-resets.ts';
