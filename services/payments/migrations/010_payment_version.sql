-- Each payment counts its own changes, and every event carries the count its state had
-- (data.version). The relay cannot publish in commit order: it orders the outbox by
-- created_at, the start of the writing transaction, and a transaction that began first
-- may commit last. Writers of one payment are serialized by its row lock, so the count
-- follows their commit order, and a consumer that keeps the highest version never lets
-- an older state of a payment overwrite a newer one.

-- Rows written before start at 1; their events carried no version.
alter table payments add column version bigint not null default 1;

-- A trigger, not `version = version + 1` in each statement, so that no writer (the
-- repository's transitions, refunds, ones not written yet) can forget it. Every update
-- counts, those that publish nothing too (a settlement lease): a version only has to grow.
create function count_payment_version() returns trigger language plpgsql as $$
begin
  new.version := old.version + 1;
  return new;
end;
$$;

create trigger payments_version before update on payments
  for each row execute function count_payment_version();
