-- The status projection: product-reference attempts rebuilt from the PAYMENTS stream.
-- status alone reads and writes here; every row can be rebuilt by replaying the stream.

-- One row per attempt (payment id), holding the latest state its events described.
create table attempts (
  payment_id uuid primary key,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  reference text not null,
  channel text not null check (channel = 'AGENCY'),
  status text not null,
  -- Integer centimes, like every amount inside dzpay; the status record shows DZD.
  amount bigint not null,
  currency text not null,
  order_id text,
  paid_at timestamptz,
  -- The lock on the reference while the attempt is in flight. lock_has_expiry false with
  -- a null lock_expires_at means "held without expiry" (the card network has the order).
  lock_expires_at timestamptz,
  lock_has_expiry boolean not null,
  -- success, fail or pending once the WEBHOOKS stream is projected here too.
  webhook_delivery text check (webhook_delivery in ('success', 'fail', 'pending')),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- Stream sequence of the event the row reflects: an older event never overwrites it.
  stream_seq bigint not null
);

create index attempts_reference on attempts (merchant_id, mode, reference);

-- Events already applied: redeliveries and republished duplicates change nothing.
create table processed_events (
  event_id uuid primary key,
  stream_seq bigint not null,
  processed_at timestamptz not null default now()
);

-- The highest stream sequence applied per durable consumer. A consumer whose acks are
-- ahead of this (a fresh or restored database) is replayed from the start.
create table consumer_positions (
  consumer text primary key,
  stream_seq bigint not null
);
