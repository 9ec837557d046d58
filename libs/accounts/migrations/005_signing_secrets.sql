-- Webhook signing secrets, sealed like the API secret. During a rotation the previous
-- one stays valid until previous_valid_until, so partners can switch without a gap.
alter table partner_endpoints
  add column signing_secret_sealed bytea,
  add column previous_signing_secret_sealed bytea,
  add column previous_valid_until timestamptz;

-- A new partner endpoint must reach the partner directory too (migration 004 covers
-- updates and deletes).
create trigger partner_endpoints_inserted after insert on partner_endpoints
  for each statement execute function notify_accounts_changed();
