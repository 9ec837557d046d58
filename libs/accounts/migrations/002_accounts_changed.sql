-- Gateways cache who owns an API key. Any change that could take access away (a key
-- revoked, a merchant deactivated or deleted) tells every gateway, through
-- LISTEN/NOTIFY, to forget what it cached. A trigger, so that no writer can forget.

create function notify_accounts_changed() returns trigger
language plpgsql as $$
begin
  perform pg_notify('dzpay_accounts_changed', tg_table_name);
  return null;
end;
$$;

create trigger api_keys_changed after update or delete on api_keys
  for each statement execute function notify_accounts_changed();

create trigger merchants_changed after update or delete on merchants
  for each statement execute function notify_accounts_changed();
