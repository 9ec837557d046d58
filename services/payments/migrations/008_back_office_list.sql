-- The back office's payments list (GET /api/v1/payments and its CSV export): newest
-- first per merchant and mode, paged by keyset on (created_at, id), so a merchant with a
-- million payments gets a page as fast as one with ten. Built in the migration's
-- transaction (no CONCURRENTLY): on a large table, build them by hand first with
-- `create index concurrently … if not exists` under the same names.

-- Every page: the keyset walks this index backwards from the cursor and stops at the limit.
create index if not exists payments_list
  on payments (merchant_id, mode, created_at desc, id desc);

-- status=…: created, processing, success, refunded are one status; failed, expired and
-- cancelled are `failed` told apart by failure_reason, checked on the rows this finds.
create index if not exists payments_list_status
  on payments (merchant_id, mode, status, created_at desc, id desc);

-- reference=… and referencePrefix=…: byte-wise ranges (the prefix's upper bound is
-- computed by payments), whatever the database's collation.
create index if not exists payments_reference_pattern
  on payments (merchant_id, mode, reference text_pattern_ops);

-- metadataKey + metadataValue: `metadata @> {"key": "value"}`.
create index if not exists payments_metadata
  on payments using gin (metadata jsonb_path_ops);
