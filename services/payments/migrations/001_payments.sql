-- Payments of both channels and idempotency keys (the outbox of their events is the
-- platform's: libs/platform/sql/outbox.sql).
-- payments alone reads and writes here.

create sequence order_numbers;

create table payments (
  id uuid primary key,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  channel text not null check (channel in ('CHECKOUT', 'AGENCY')),
  reference text not null check (length(reference) between 1 and 255),
  merchant_name text not null,
  -- Integer centimes: amount before the fee, the fee, and what the card is charged.
  amount bigint not null check (amount > 0),
  fee bigint not null check (fee >= 0),
  total bigint not null check (total = amount + fee),
  currency text not null,
  language text not null check (language in ('ar', 'fr', 'en')),
  status text not null check (status in ('pending', 'processing', 'success', 'failed', 'refunded')),
  failure_reason text,
  success_url text,
  failure_url text,
  metadata jsonb,
  checkout_token_hash bytea not null unique,
  -- The card network's order number (ours, unique, 10 characters) and order id (theirs).
  order_number text not null unique,
  cardnet_order_id text unique,
  cardnet_form_url text,
  approval_code text,
  masked_pan text,
  action_code integer,
  refunded_amount bigint not null default 0 check (refunded_amount between 0 and total),
  expires_at timestamptz not null,
  paid_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A merchant's reference is used once per mode, whatever becomes of the payment: the
-- spec makes a duplicate a 409, and a failed registration consumes the reference.
create unique index payments_reference on payments (merchant_id, mode, reference)
  where channel = 'CHECKOUT';

-- What the sweeper looks at: attempts not decided yet.
create index payments_open on payments (expires_at) where status in ('pending', 'processing');

-- The first answer to a request with an Idempotency-Key, replayed for 24 hours.
create table idempotency_keys (
  merchant_id uuid not null,
  mode text not null,
  key text not null,
  fingerprint text not null,
  response jsonb,
  created_at timestamptz not null default now(),
  primary key (merchant_id, mode, key)
);
