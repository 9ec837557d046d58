-- Payment links: a page that makes ordinary hosted-checkout payments for its merchant
-- and mode, at a fixed amount or one the payer chooses between two bounds.

create table payment_links (
  id uuid primary key,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  -- The public part of the page's URL (/link/<token>): printed, shared, encoded in QR
  -- codes, so kept as is (it grants nothing but paying the merchant).
  token text not null unique,
  label text not null check (length(label) between 1 and 200),
  -- Integer centimes before the fee: a fixed amount, or the payer's bounds.
  amount bigint check (amount > 0),
  min_amount bigint check (min_amount > 0),
  max_amount bigint,
  single_use boolean not null,
  expires_at timestamptz,
  language text not null check (language in ('ar', 'fr', 'en')),
  metadata jsonb,
  -- How many payments were opened through the link: numbers their references.
  opened bigint not null default 0,
  deactivated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (
    (amount is not null and min_amount is null and max_amount is null)
    -- Both bounds given: a null max_amount would make `>=` null, which a check passes.
    or (amount is null and min_amount is not null and max_amount is not null
      and max_amount >= min_amount)
  )
);

-- The merchant's links, newest first, by keyset.
create index payment_links_list on payment_links (merchant_id, mode, created_at desc, id desc);

alter table payments
  add column payment_link_id uuid references payment_links (id),
  -- The payment belongs to a single-use link's one sale.
  add column payment_link_once boolean not null default false;

-- The truth behind "a single-use link is paid once": at most one of its payments is in
-- flight or paid (a refund does not sell it again). Two payers at once cannot both get a
-- checkout, whatever the clock or a retry says; a payment that fails or expires leaves
-- the index and frees the link for the next payer. A payment turns `success` only from
-- `pending` or `processing` (repository.succeed), so it never re-enters behind another.
create unique index payments_one_link_sale on payments (payment_link_id)
  where payment_link_once and status in ('pending', 'processing', 'success', 'refunded');

-- A link's payments (its page in the dashboard, the list filter, its counts).
create index payments_by_link on payments (payment_link_id, created_at desc, id desc)
  where payment_link_id is not null;
