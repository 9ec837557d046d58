-- Who issued each API key from the dashboard (docs/team.md). A key acts for its merchant
-- in its mode across the whole API, so it must not outlive its issuer's right to hold
-- one: disabling a user, or lowering their role below what a key of that mode needs,
-- revokes the keys they issued (in the same transaction; the api_keys trigger then tells
-- every gateway to forget them). Null: issued by an operator (the admin CLI), or before
-- issuers were kept.
alter table api_keys
  add column issued_by uuid references dashboard_users (id) on delete set null;

create index api_keys_issued_by on api_keys (issued_by)
  where issued_by is not null and revoked_at is null;
