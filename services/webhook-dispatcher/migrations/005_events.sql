-- Every event the dispatcher took in for a merchant: payment events that map
-- to a webhook type, whether or not the endpoint wanted that kind at the time, and test
-- events. Merchants list them (GET /api/v1/events) and replay them; a delivery exists
-- only for the kinds the endpoint wanted (or a replay asked for).
create table events (
  id uuid primary key,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  type text not null
    check (type in ('payment.success', 'payment.fail', 'payment.refunded', 'webhook.test')),
  payment_id uuid,
  -- The exact JSON a delivery sends (its `data` is what the list shows).
  body text not null,
  created_at timestamptz not null
);

-- Newest first, by merchant and mode: the list's keyset order (created_at, id).
create index events_by_merchant on events (merchant_id, mode, created_at desc, id desc);
create index events_by_payment on events (merchant_id, mode, payment_id);

-- Deliveries now carry refunds and test events; a test event has no payment.
alter table deliveries drop constraint deliveries_event_type_check;
alter table deliveries add constraint deliveries_event_type_check
  check (event_type in ('payment.success', 'payment.fail', 'payment.refunded', 'webhook.test'));
alter table deliveries
  alter column payment_id drop not null,
  alter column reference drop not null,
  alter column channel drop not null;

-- The deliveries made before this migration are events too.
insert into events (id, merchant_id, mode, type, payment_id, body, created_at)
select event_id, merchant_id, mode, event_type, payment_id, body,
  -- Milliseconds, as every later event: the list's cursor carries them exactly.
  date_trunc('milliseconds', created_at) from deliveries
on conflict (id) do nothing;
