-- The trace context (W3C traceparent) that was active when an event was written, so the
-- relay's publish, and what consumers do with the event, join the request's trace.
alter table outbox add column trace_carrier jsonb;
