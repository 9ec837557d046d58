-- Every status replica keeps the attempts of references it was asked about in memory
-- (adapters/attempts-cache.ts). Any change to a product attempt tells every replica,
-- through LISTEN/NOTIFY at commit, to forget that reference. A trigger, so that no
-- writer can forget to tell. QR attempts are never asked for: they say nothing.
create function notify_attempt_changed() returns trigger
language plpgsql as $$
declare
  changed attempts;
begin
  changed := case when tg_op = 'DELETE' then old else new end;
  if changed.reference_kind = 'product' then
    perform pg_notify(
      'dzpay_status_changed',
      json_build_array(changed.merchant_id, changed.mode, changed.reference)::text
    );
  end if;
  return null;
end;
$$;

create trigger attempts_changed after insert or update or delete on attempts
  for each row execute function notify_attempt_changed();
