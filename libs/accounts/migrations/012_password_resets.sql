-- A forgotten dashboard password: the links mailed to choose a new one (docs/password-reset.md).
-- Each is stored as the SHA-256 of its token, like an invitation: the token is only ever
-- in the email, so a database dump holds no usable link. A link works once, until
-- expires_at; setting the password marks it and every other open link of the user used.
create table dashboard_password_resets (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references dashboard_users (id) on delete cascade,
  token_hash bytea not null unique check (length(token_hash) = 32),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Set once: when the link set a password, or when another link of the user did.
  used_at timestamptz,
  check (expires_at > created_at)
);

-- A user's open links, ended together when one of them sets the password.
create index dashboard_password_resets_user on dashboard_password_resets (user_id)
  where used_at is null;
