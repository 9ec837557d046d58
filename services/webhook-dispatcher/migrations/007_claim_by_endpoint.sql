-- Claiming due deliveries walks the endpoints that have pending ones (a loose index scan)
-- and takes at most each endpoint's free slots from its own oldest: a claim costs the
-- endpoints and the rows it takes, not a sort of every due delivery (issue 25: with a
-- backlog of 3 000 on one endpoint, the ranked scan took ~3 ms per claim, the bulk of
-- Postgres's CPU per webhook delivery).
create index deliveries_due_by_endpoint on deliveries (merchant_id, mode, next_attempt_at, id)
  where state = 'pending';
