import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';

export interface Telemetry {
  /** Flushes spans still buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured; without one it
 * does nothing, so a developer's machine needs no collector.
 */
export function startTelemetry(service: string, otlpEndpoint: string | undefined): Telemetry {
  if (!otlpEndpoint) return { shutdown: async () => {} };
  const sdk = new NodeSDK({
    serviceName: `dzpay-${service}`,
    traceExporter: new OTLPTraceExporter({ url: new URL('/v1/traces', otlpEndpoint).href }),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
