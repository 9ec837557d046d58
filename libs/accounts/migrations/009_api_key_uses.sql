-- When each API key was last used, so a merchant can tell a key still in use from one
-- safe to revoke. A table of its own, not a column of api_keys: the gateways write it
-- while serving requests, and a write to api_keys tells every gateway to forget its
-- cached key owners (migration 002). Written at most once a minute per key and gateway.
create table api_key_uses (
  key_id uuid primary key references api_keys (id) on delete cascade,
  last_used_at timestamptz not null
);
