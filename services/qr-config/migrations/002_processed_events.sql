-- Payment events qr-config has acted on. A redelivered event (JetStream redelivers after
-- a lost ack; the stream drops a repeated Nats-Msg-Id only within two minutes) finds its
-- id here and changes nothing. Written in the transaction that clears the configuration.

create table processed_events (
  event_id uuid primary key,
  processed_at timestamptz not null default now()
);
