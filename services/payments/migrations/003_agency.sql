-- AGENCY attempts: paying a partner's product reference, or a static QR code.
alter table payments
  add column locks_reference boolean not null default false,
  -- The card network holds the order and its verdict is awaited: the lock has no expiry.
  add column awaiting_verdict boolean not null default false,
  add column product_label text;

-- The truth behind the reference lock: at most one in-flight attempt that locks a
-- reference, per merchant and mode. Redis is only the fast gate in front of it, so an
-- expired key, a failover or a paused process can never yield two.
create unique index payments_reference_lock on payments (merchant_id, mode, reference)
  where locks_reference and status in ('pending', 'processing');
