-- Money is never doubled: the database itself allows at most one success per sale, and
-- every refund is an intent written before the card network is asked.

-- What an attempt's reference names. A merchant's order number, a partner's product and
-- a QR code's token are separate namespaces: a product called like a QR token is
-- another thing, and neither locks nor pays the other.
alter table payments
  add column reference_kind text check (reference_kind in ('order', 'product', 'qr')),
  -- The sale an attempt belongs to: 0 for a product (sold once) and an order, the
  -- configuration version for a QR code (a single-use configuration is sold once per
  -- version).
  add column epoch bigint check (epoch >= 0);

-- Rows written before this migration: a multi-use QR attempt never locked its reference,
-- and a QR token looks like one. A second success left on one sale by the bug this
-- migration closes keeps its row under an epoch of its own, so the index below can be
-- built; nothing else reads those epochs.
update payments set reference_kind = case
    when channel = 'CHECKOUT' then 'order'
    when not locks_reference or reference ~ '^QR[0-9A-Z]{20}$' then 'qr'
    else 'product'
  end;
with ranked as (
  select id, row_number() over (
      partition by merchant_id, mode, reference_kind, reference order by created_at, id) as n
  from payments
  where locks_reference and status in ('pending', 'processing', 'success')
)
update payments p set epoch = case when ranked.n = 1 then 0 else 1000000000 + ranked.n end
from ranked where ranked.id = p.id;
update payments set epoch = 0 where epoch is null;
alter table payments
  alter column reference_kind set not null,
  alter column epoch set not null;

-- The truth behind "one payer at a time" and "paid once": per sale, at most one attempt
-- that is in flight or succeeded. A second payer's insert conflicts with the first
-- attempt whatever Redis, a clock or a late card verdict says; a refunded sale (status
-- refunded) may be sold again. It replaces the index over in-flight attempts only, which
-- let a new attempt in once the first had succeeded.
create unique index payments_one_sale
  on payments (merchant_id, mode, reference_kind, reference, epoch)
  where locks_reference and status in ('pending', 'processing', 'success');
drop index payments_reference_lock;

-- Who is settling the attempt (talking to the card network about it) and until when. A
-- lease row instead of a lock held on a pooled connection: a settlement waiting on the
-- card network holds no connection, and one that dies lets go when its lease ends.
alter table payments
  add column settle_lease uuid,
  add column settle_lease_until timestamptz,
  -- The sweeper's backoff: an attempt it failed to decide waits its turn, so attempts
  -- that keep failing never crowd out the others.
  add column sweep_failures integer not null default 0,
  add column next_sweep_at timestamptz;

drop index payments_open;
create index payments_open on payments (coalesce(next_sweep_at, expires_at))
  where status in ('pending', 'processing');
drop index payments_refund_due;
create index payments_refund_due on payments (coalesce(next_sweep_at, updated_at))
  where refund_due;

-- Every refund dzpay makes, written before the card network is asked: a merchant's
-- refund of a success, and money returned for an attempt recorded as failed (paid late,
-- for another amount, or a second success of a sale). An intent whose answer was lost
-- stays `requested` and is completed (never made again) by a retry with its
-- Idempotency-Key or by the sweeper, which compare the card network's refunded amount
-- with `base_refunded` + `amount`.
create table refunds (
  id uuid primary key,
  payment_id uuid not null references payments (id),
  merchant_id uuid not null,
  mode text not null,
  amount bigint not null check (amount > 0),
  reason text not null check (reason in ('merchant', 'late', 'amount-mismatch', 'already-paid', 'refund-due')),
  -- The merchant's Idempotency-Key, for merchant refunds sent with one.
  idempotency_key text,
  state text not null check (state in ('requested', 'succeeded', 'failed')),
  -- What the card network had refunded of the order when the intent was written: the
  -- intent happened once the network's count reaches base_refunded + amount.
  base_refunded bigint not null check (base_refunded >= 0),
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- One refund of a payment at a time: the base above is exact only if no other refund of
-- the same order can land in between.
create unique index refunds_one_open on refunds (payment_id) where state = 'requested';
-- A key names one refund (a refused one may be tried again under the same key).
create unique index refunds_key on refunds (payment_id, idempotency_key)
  where idempotency_key is not null and state <> 'failed';
create index refunds_open on refunds (updated_at) where state = 'requested';

-- Idempotency keys are leased by the request that runs them, which renews the lease
-- while it runs: a retry takes a key over only once its first request has surely
-- stopped (finished without an answer worth replaying, or died).
alter table idempotency_keys
  add column owner uuid,
  add column lease_until timestamptz;
update idempotency_keys set lease_until = created_at + interval '1 minute' where response is null;
