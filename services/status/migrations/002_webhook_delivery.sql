-- payment.webhookDelivery, projected from the WEBHOOKS stream (the webhook dispatcher's
-- delivery outcomes) onto the attempt it tells of.

-- Stream sequence (of WEBHOOKS, not PAYMENTS) of the delivery event webhook_delivery
-- reflects: an older delivery event never overwrites a newer one. Null: none applied.
alter table attempts add column webhook_seq bigint;

-- Delivery events that arrived before their attempt: the two streams are consumed
-- independently (and a replay into a fresh database runs both from the start), so a
-- delivery outcome can land before payment.created is projected. It waits here, newest
-- sequence only, and the PAYMENTS projection moves it onto the attempt row in the
-- transaction that inserts it. A pending table rather than a placeholder attempt row
-- keeps attempts free of rows that are not attempts (they would need nullable columns and
-- a filter in every read).
create table pending_webhook_deliveries (
  payment_id uuid primary key,
  webhook_delivery text not null check (webhook_delivery in ('success', 'fail', 'pending')),
  webhook_seq bigint not null
);
