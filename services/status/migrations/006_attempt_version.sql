-- Order. The PAYMENTS stream may hold a payment's events out of commit order (the relay
-- publishes by transaction start), so the stream sequence alone cannot say which state is
-- newer. Events now carry their payment's version (data.version, counted by the payments
-- row): an attempt keeps the version it reflects and never takes a lower or equal one.
-- Null: the attempt reflects an event written before versions, and stream_seq decides.
alter table attempts add column payment_version bigint;

-- Each attempt row counts its own changes too (a revision), so that whoever remembers an
-- answer can tell an old one from a new one: the notification of a change says which
-- attempt reached which revision, and a status answer says which revision of each
-- attempt it reflects. Rows are written under their row lock, so revisions follow the
-- commits. A trigger, so that no writer can forget it.
alter table attempts add column revision bigint not null default 1;

create function count_attempt_revision() returns trigger language plpgsql as $$
begin
  new.revision := old.revision + 1;
  return new;
end;
$$;

create trigger attempts_revision before update on attempts
  for each row execute function count_attempt_revision();

-- The notification of migration 005 now names the attempt and its revision:
-- [merchantId, mode, reference, paymentId, revision]. A deleted attempt only names its
-- reference (nothing can reflect it any more).
create or replace function notify_attempt_changed() returns trigger
language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    if old.reference_kind = 'product' then
      perform pg_notify(
        'dzpay_status_changed',
        json_build_array(old.merchant_id, old.mode, old.reference)::text
      );
    end if;
  elsif new.reference_kind = 'product' then
    perform pg_notify(
      'dzpay_status_changed',
      json_build_array(new.merchant_id, new.mode, new.reference, new.payment_id, new.revision)::text
    );
  end if;
  return null;
end;
$$;
