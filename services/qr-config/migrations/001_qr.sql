-- QR codes and their current configuration. qr-config alone reads and writes here.

create table codes (
  token text primary key,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  created_at timestamptz not null default now()
);

create index codes_merchant on codes (merchant_id, mode);

-- One row per token: a configuration is replaced whole, in one statement, so a reader
-- never sees the amounts of one request with the expiry of another.
create table configs (
  token text primary key references codes (token) on delete cascade,
  amounts bigint[] not null check (cardinality(amounts) between 1 and 20),
  expires_at timestamptz,
  single_use boolean not null,
  version bigint not null default 1,
  updated_at timestamptz not null default now()
);
