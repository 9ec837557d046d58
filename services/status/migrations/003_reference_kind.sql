-- A product reference and a QR token are separate namespaces: the status endpoint
-- answers for products only, so a QR code named like a product never shows in its
-- status. Attempts projected before events carried their kind are products.
alter table attempts
  add column reference_kind text not null default 'product'
    check (reference_kind in ('product', 'qr')),
  -- Whether the attempt holds its reference while in flight (a multi-use QR code does
  -- not). An in-flight attempt that holds it counts as held until it is decided, also
  -- past the end of its lock: only settlement can say nothing will succeed.
  add column locks_reference boolean not null default true;

-- Rows written before: "in flight, has an expiry, none set" was how a multi-use QR
-- attempt said it held nothing.
update attempts set locks_reference = false
where lock_has_expiry and lock_expires_at is null and status in ('pending', 'processing');

drop index attempts_reference;
create index attempts_reference on attempts (merchant_id, mode, reference_kind, reference);
