-- Every delivery of a merchant's webhooks, newest first, a page at a time
-- (webhooks.deliveries.all, GET /api/v1/webhooks/deliveries): the list's keyset order
-- (created_at, id) by merchant and mode, so a page reads its rows from the index,
-- whatever the number of other merchants' deliveries. The day range is a range of
-- created_at in the same index; the outcome filter (state) is checked on its rows.
create index deliveries_by_merchant on deliveries (merchant_id, mode, created_at desc, id desc);
