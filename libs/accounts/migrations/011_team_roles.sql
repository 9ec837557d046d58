-- Roles in a merchant's team (docs/team.md): what each dashboard user may open and do,
-- chosen on the invitation; invitations that can be revoked before they are used.

-- Everyone could do everything before roles existed: today's users keep that as owners.
alter table dashboard_users
  add column role text not null default 'owner'
    check (role in ('owner', 'admin', 'developer', 'accountant'));
-- From now on every new user names a role: a forgotten one must fail, never grant owner.
alter table dashboard_users alter column role drop default;

-- An invitation chooses the invitee's role. Those still pending were made when every user
-- could do everything; they become admin (everything but the owners), not owner.
alter table dashboard_invites
  add column role text not null default 'admin'
    check (role in ('owner', 'admin', 'developer', 'accountant'));
alter table dashboard_invites alter column role drop default;
-- Set when an owner or admin withdraws the invitation: its link works no more.
alter table dashboard_invites add column revoked_at timestamptz;
