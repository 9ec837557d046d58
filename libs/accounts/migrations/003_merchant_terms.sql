-- What payments need to know of a merchant: the gateway fee (whole DZD per payment),
-- the accepted amount range (centimes; the spec's default 5000 to 100000000) and the
-- wallet payments settle into (none yet: registrations answer 422).
alter table merchants
  add column fee_dzd integer not null default 0 check (fee_dzd >= 0),
  add column min_amount bigint not null default 5000 check (min_amount > 0),
  add column max_amount bigint not null default 100000000,
  add column wallet_id text,
  add constraint merchants_amount_range check (max_amount >= min_amount);
