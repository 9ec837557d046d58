alter table items add column price_centimes bigint not null default 0;
