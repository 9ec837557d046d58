import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { headers, type MsgHdrs } from '@nats-io/transport-node';

// dzpay's own spans, through the OpenTelemetry API: without a registered SDK (no
// OTEL_EXPORTER_OTLP_ENDPOINT) every call here is a no-op. The trace context crosses
// NATS in message headers (W3C traceparent) and the outbox in a column, so one trace
// follows a payment from the HTTP request to the partner's webhook.

const tracer = () => trace.getTracer('dzpay');

/** Runs `work` in a new span, child of the active one; records a thrown error and ends it. */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
    parent,
  );
  // No tracing SDK: the span is a no-op with an empty context; skip the context switch,
  // which would cost every query and request for nothing.
  if (!trace.isSpanContextValid(span.spanContext())) return work(span);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** A trace context as W3C headers (`traceparent`, `tracestate`), storable as JSON. */
export type TraceCarrier = Record<string, string>;

/** The active trace context as W3C headers. */
export function traceCarrier(active: Context = context.active()): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(active, carrier);
  return carrier;
}

/** The trace context a carrier (HTTP headers, a stored traceparent) names; the root one without. */
export function contextOf(carrier: Record<string, string | string[] | undefined> | null): Context {
  if (!carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** NATS headers carrying the active trace context, or undefined when there is none. */
export function natsTraceHeaders(): MsgHdrs | undefined {
  const carrier = traceCarrier();
  if (Object.keys(carrier).length === 0) return undefined;
  const hdrs = headers();
  for (const [key, value] of Object.entries(carrier)) hdrs.set(key, value);
  return hdrs;
}

/** The trace context in a NATS message's headers. */
export function natsContextOf(hdrs: MsgHdrs | undefined): Context {
  if (!hdrs) return ROOT_CONTEXT;
  const carrier: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate']) {
    const value = hdrs.get(key);
    if (value) carrier[key] = value;
  }
  return contextOf(carrier);
}

export { SpanKind };
