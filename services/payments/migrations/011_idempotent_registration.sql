-- A registration binds its payment to its Idempotency-Key in the transaction that
-- creates the payment (only while the request still holds the key). A retry that takes
-- the key over from a first try that died after that commit, before its answer was
-- stored, answers that payment (same id, a new checkout link) instead of running the
-- registration again into 409 PAYMENT_INSTANCE409_DUPLICATE_REFERENCE. Forgotten with
-- the key (24 hours). Keys of refunds have their binding in refunds.idempotency_key.
alter table idempotency_keys add column payment_id uuid;
