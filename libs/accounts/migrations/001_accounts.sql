-- Merchants and their API keys. Only the gateway reads and writes here.

create table merchants (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A key is stored as its SHA-256 only: the key itself is shown once, when issued.
create table api_keys (
  id uuid primary key default gen_random_uuid(),
  merchant_id uuid not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  key_hash bytea not null unique check (length(key_hash) = 32),
  -- The first characters of the key, so people can tell their keys apart.
  display_prefix text not null,
  label text,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

create index api_keys_merchant on api_keys (merchant_id);
