-- The back office's daily report (GET /api/v1/reports/daily): successes by paid_at and
-- confirmed merchant refunds by confirmation time, per merchant and mode, summed over a
-- range of days. Built in the migration's transaction (no CONCURRENTLY): on a large
-- table, build them by hand first with `create index concurrently … if not exists`
-- under the same names.
create index if not exists payments_report_paid
  on payments (merchant_id, mode, paid_at) include (total, fee)
  where paid_at is not null and status in ('success', 'refunded');

create index if not exists refunds_report_confirmed
  on refunds (merchant_id, mode, updated_at) include (amount)
  where state = 'succeeded' and reason = 'merchant';
