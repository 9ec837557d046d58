-- The merchants' dashboard: people who sign in for a merchant, and the
-- invitations that let a user bring in a colleague. Passwords are argon2id hashes;
-- an invitation is stored as the SHA-256 of its token (the link is shown once).

create table dashboard_users (
  id uuid primary key default gen_random_uuid(),
  merchant_id uuid not null references merchants (id) on delete cascade,
  email text not null check (length(email) between 3 and 254),
  password_hash text not null,
  created_at timestamptz not null default now(),
  -- A disabled user cannot sign in; their sessions are dropped when disabled.
  disabled_at timestamptz
);

-- One account per email, whatever its case: the email is what people sign in with.
create unique index dashboard_users_email on dashboard_users (lower(email));
create index dashboard_users_merchant on dashboard_users (merchant_id);

create table dashboard_invites (
  id uuid primary key default gen_random_uuid(),
  merchant_id uuid not null references merchants (id) on delete cascade,
  email text not null check (length(email) between 3 and 254),
  token_hash bytea not null unique check (length(token_hash) = 32),
  invited_by uuid references dashboard_users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Set once, when the invitee chose a password: the link cannot be used again.
  accepted_at timestamptz
);

create index dashboard_invites_merchant on dashboard_invites (merchant_id);
