-- A payment we reported failed whose order the card network may still hold money for
-- (a payer who finished the form late, an amount that did not match, an order whose
-- cancellation could not be confirmed): the sweeper checks it and refunds.
alter table payments add column refund_due boolean not null default false;
create index payments_refund_due on payments (updated_at) where refund_due;

-- Idempotency keys are forgotten after 24 hours by a periodic delete.
create index idempotency_keys_created on idempotency_keys (created_at);
