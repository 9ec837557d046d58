-- The back office's QR codes list (GET /api/v1/qr-codes): newest first per merchant and
-- mode, paged by keyset on (created_at, token), so a page costs the same at any depth.
-- Built in the migration's transaction (no CONCURRENTLY): on a large table, build it by
-- hand first with `create index concurrently … if not exists` under the same name.
create index if not exists codes_list on codes (merchant_id, mode, created_at desc, token desc);

-- codes_merchant (merchant_id, mode) is a prefix of the new index: one fewer to maintain.
drop index if exists codes_merchant;
