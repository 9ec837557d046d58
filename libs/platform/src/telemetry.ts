export interface Telemetry {
  /** Flushes spans still buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured; without one it
 * does nothing, so a developer's machine needs no collector. The SDK is loaded only
 * when used: it is the heaviest import of a service and the admin command line.
 */
export async function startTelemetry(
  service: string,
  otlpEndpoint: string | undefined,
): Promise<Telemetry> {
  if (!otlpEndpoint) return { shutdown: async () => {} };
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const sdk = new NodeSDK({
    serviceName: `dzpay-${service}`,
    traceExporter: new OTLPTraceExporter({ url: new URL('/v1/traces', otlpEndpoint).href }),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
