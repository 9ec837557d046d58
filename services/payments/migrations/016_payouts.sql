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
  -- operator who records the same transfer twice gets the first one back. Stored as
  -- the contract normalises it (trimmed, upper case); the unique index below compares
  -- upper(reference) anyway, so `bna-1` and `BNA-1` can never be two payouts.
  reference text not null check (length(reference) between 1 and 100),
  -- The operator who recorded it (the audit log has the event too).
  recorded_by text not null check (length(recorded_by) between 1 and 100),
  -- When the payout was recorded: the insert sets clock_timestamp(), taken once the
  -- merchant's payout lock is held, not now() (the transaction's start, before it
  -- waited for the lock): a payout is never dated before one it waited behind.
  recorded_at timestamptz not null default clock_timestamp()
);

-- payout-repository.ts byReference looks up by the same expression.
create unique index payouts_reference on payouts (mode, upper(reference));

-- The balance's sums and the merchant's list, newest first (GET /api/v1/payouts).
create index payouts_merchant on payouts (merchant_id, mode, recorded_at desc, id desc)
  include (amount);

-- The balance's by-day and overall sums walk the same indexes as the daily report
-- (migration 009); merchant refunds still open are what a payout must leave alone.
create index if not exists refunds_merchant_open on refunds (merchant_id, mode)
  include (amount)
  where state = 'requested' and reason = 'merchant';
