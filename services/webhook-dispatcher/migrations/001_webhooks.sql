-- Webhook deliveries of payment outcomes and their attempts (the outbox of their events
-- is the platform's: libs/platform/sql/outbox.sql).
-- webhook-dispatcher alone reads and writes here.

-- One delivery per payment outcome event (its id is the webhook's id), whatever the
-- number of times PAYMENTS hands the event over.
create table deliveries (
  id uuid primary key,
  event_id uuid not null unique,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  payment_id uuid not null,
  reference text not null,
  channel text not null check (channel in ('CHECKOUT', 'AGENCY')),
  event_type text not null check (event_type in ('payment.success', 'payment.fail')),
  -- The exact JSON sent, signed byte for byte on every attempt: never re-serialized.
  body text not null,
  state text not null check (state in ('pending', 'success', 'fail')),
  attempts int not null default 0,
  -- When the next attempt is due; while an attempt is in flight, the end of its claim,
  -- so a replica that dies mid-attempt leaves the delivery to the others. Null once final.
  next_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index deliveries_due on deliveries (next_attempt_at) where state = 'pending';
create index deliveries_payment on deliveries (merchant_id, mode, payment_id);

create table delivery_attempts (
  delivery_id uuid not null references deliveries (id),
  number int not null,
  started_at timestamptz not null,
  status_code int,
  latency_ms int not null,
  -- At most 1 KB of what the partner answered.
  response_excerpt text not null default '' check (octet_length(response_excerpt) <= 1024),
  error text,
  primary key (delivery_id, number)
);

