-- reverse.do, like refund.do, may be executed by the card network long after its caller
-- gave up on it: a merchant's cancel whose reverse went unanswered answers 503 and leaves
-- the payment open, yet the reversal can still land after the payer paid, giving the
-- money back. `reverse_asked_at` (this database's clock) is written just before a cancel
-- sends reverse.do; while a reversal so asked may still land (REFUND_HORIZON_MS), a
-- deposit is not recorded as a success: the order's later state decides.
alter table payments add column reverse_asked_at timestamptz;
