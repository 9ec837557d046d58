-- Payouts: money an operator sent from dzpay to a merchant's wallet, recorded with
-- `dzpay payout record` (docs/balance.md). Append only: a payout is never edited or
-- deleted; a mistake is answered by the bank, not by rewriting history.
create table payouts (
  id uuid primary key,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  -- Integer centimes.
  amount bigint not null check (amount > 0),
  wallet text not null check (length(wallet) between 1 and 100),
  -- The bank's reference of the transfer: one payout per reference (and mode), so an
  -- operator who records the same transfer twice gets the first one back.
  reference text not null check (length(reference) between 1 and 100),
  -- The operator who recorded it (the audit log has the event too).
  recorded_by text not null check (length(recorded_by) between 1 and 100),
  recorded_at timestamptz not null default now()
);

create unique index payouts_reference on payouts (mode, reference);

-- The balance's sums and the merchant's list, newest first (GET /api/v1/payouts).
create index payouts_merchant on payouts (merchant_id, mode, recorded_at desc, id desc)
  include (amount);

-- The balance's by-day and overall sums walk the same indexes as the daily report
-- (migration 009); merchant refunds still open are what a payout must leave alone.
create index if not exists refunds_merchant_open on refunds (merchant_id, mode)
  include (amount)
  where state = 'requested' and reason = 'merchant';
