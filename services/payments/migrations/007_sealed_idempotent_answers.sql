-- An idempotent registration's answer holds the payment's checkout token, which is
-- otherwise stored only hashed. The answer to replay is now kept sealed (AES-256-GCM
-- under SECRETS_KEY, bound to its merchant, mode and key); `response` keeps only what
-- an operator may read: whether it succeeded, and the error code when it did not.
-- Rows written before this migration keep their clear answer until they are forgotten
-- (24 hours, the pruner).
alter table idempotency_keys add column response_sealed bytea;
