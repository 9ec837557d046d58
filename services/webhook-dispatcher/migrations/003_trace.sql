-- The trace context of the outbox event (see payments' 004) and of the payment outcome
-- a delivery came from, so each attempt joins the trace of the payment it reports.
alter table outbox add column trace_carrier jsonb;
alter table deliveries add column trace_carrier jsonb;
