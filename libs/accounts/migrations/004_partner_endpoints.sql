-- The partner's own server, per merchant and mode: dzpay looks products up there
-- (GET {api_url}/{reference}) and, later, sends it webhooks. The API secret is sealed
-- with AES-256-GCM under SECRETS_KEY; the database never holds it in clear.
create table partner_endpoints (
  merchant_id uuid not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  api_url text not null,
  api_secret_sealed bytea not null,
  updated_at timestamptz not null default now(),
  primary key (merchant_id, mode)
);

-- A changed endpoint or secret must reach every gateway's cache at once.
create trigger partner_endpoints_changed after update or delete on partner_endpoints
  for each statement execute function notify_accounts_changed();
