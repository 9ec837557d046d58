-- Who did what to a merchant's money and access: every refund, cancel, API key,
-- webhook setting, payout and team change, written by the edge that knew who acted
-- (the gateway for API keys, the dashboard for its users, the admin CLI for operators).
-- Append only: nothing updates or deletes a row.
create table audit_events (
  id uuid primary key default gen_random_uuid(),
  merchant_id uuid not null references merchants (id) on delete cascade,
  -- The mode the action was in (a key's, a dashboard session's), null for team changes.
  mode text check (mode in ('test', 'live')),
  at timestamptz not null default now(),
  -- Who: a dashboard user, an API key or an operator of the admin CLI.
  actor_kind text not null check (actor_kind in ('user', 'api_key', 'operator')),
  actor_id text not null check (length(actor_id) between 1 and 200),
  -- How the actor reads to a person: the user's email, the key's prefix, the operator.
  actor_label text not null check (length(actor_label) between 1 and 300),
  -- What: a dotted action name (payment.refund, api_key.issue, team.invite, ...).
  action text not null check (action ~ '^[a-z_]+(\.[a-z_]+)+$'),
  -- On what: a payment id, a key prefix, an email; what else was said, as JSON.
  target text check (length(target) <= 300),
  details jsonb not null default '{}'::jsonb
);

-- Newest first per merchant, the only way the log is read.
create index audit_events_merchant_at on audit_events (merchant_id, at desc, id desc);
