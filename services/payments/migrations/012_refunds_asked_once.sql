-- refund.do has no idempotency key, and a call whose answer was lost may still land long
-- after: an intent is asked of the card network at most once. `asked_at` (this
-- database's clock) is written, committed, just before refund.do is sent: an intent
-- without it was never sent and may be; one with it never is again, and is decided from
-- the order's refund history (`network_reference`: the history entry that is this
-- refund, its RRN or its place in the list).
alter table refunds
  add column asked_at timestamptz,
  add column network_reference text;

-- Intents written before this migration may have been sent.
update refunds set asked_at = created_at;

-- One history entry is one refund: two intents of a payment never account for the same.
create unique index refunds_one_entry on refunds (payment_id, network_reference)
  where network_reference is not null;

-- What the merchant sees as pending: the amount of the payment's open intent, written in
-- the intent's transaction and cleared in the one that ends it.
alter table payments
  add column pending_refund bigint not null default 0 check (pending_refund >= 0);
update payments p set pending_refund = r.amount
  from refunds r where r.payment_id = p.id and r.state = 'requested';
