-- The outbox of a service that publishes events (payments, webhook-dispatcher): events
-- written in the same transaction as the state change they describe; the relay
-- (outbox-relay.ts) publishes them to JetStream (Nats-Msg-Id = id) and marks them, and
-- the pruner drops published rows. Applied by migrate() before the service's own files,
-- each time: every statement leaves an outbox already made as it is.
create table if not exists outbox (
  id uuid primary key,
  subject text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz,
  -- The trace context (W3C traceparent) active when the event was written, so the
  -- relay's publish, and what consumers do with the event, join the request's trace.
  trace_carrier jsonb
);

-- What the relay reads: unpublished events, oldest first.
create index if not exists outbox_unpublished on outbox (created_at) where published_at is null;
-- What the pruner reads: published events, oldest first, in small batches.
create index if not exists outbox_published on outbox (published_at) where published_at is not null;

-- Wakes the relay as soon as an event commits instead of at its next poll.
create or replace function notify_outbox() returns trigger language plpgsql as $$
begin
  perform pg_notify('dzpay_outbox', '');
  return null;
end;
$$;

create or replace trigger outbox_inserted after insert on outbox
  for each statement execute function notify_outbox();
