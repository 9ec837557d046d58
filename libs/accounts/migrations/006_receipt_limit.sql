-- How many receipt emails a merchant may send per hour (the spec's 20 unless an admin
-- set another number for this merchant). The receipts service counts them in Redis.
alter table merchants
  add column receipt_emails_per_hour integer not null default 20
    check (receipt_emails_per_hour > 0);
