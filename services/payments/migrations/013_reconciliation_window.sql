-- Reconciliation reads the mode's paid payments of its window (usually the last two days)
-- each run: without this index that is a scan of the whole table every hour. Built in the
-- migration's transaction; on a large table, build it by hand first with
-- `create index concurrently … if not exists` under the same name.
create index if not exists payments_paid_by_creation
  on payments (mode, created_at) where status in ('success', 'refunded');
