import { startRuntime, type Runtime } from '@dzpay/platform';
import { qrRepository } from './adapters/qr-repository.ts';
import { QrConfigEnv } from './config.ts';
import { serveQrHandlers } from './handlers/qr-handlers.ts';

/** Wires qr-config: runtime, repository, NATS handlers; shutdown drains the handlers first. */
export async function startQrConfig(
  env: Record<string, string | undefined>,
  options: { handleSignals?: boolean } = {},
): Promise<Runtime<QrConfigEnv>> {
  const runtime = await startRuntime(
    {
      service: 'qr-config',
      schema: 'qr',
      migrations: new URL('../migrations/', import.meta.url),
      env: QrConfigEnv,
      handleSignals: options.handleSignals ?? true,
    },
    env,
  );
  const servers = await serveQrHandlers({
    nats: runtime.nats,
    prefix: runtime.config.NATS_PREFIX,
    repository: qrRepository(runtime.sql),
    logger: runtime.logger,
  });
  runtime.onStop(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });
  runtime.ops.markReady();
  return runtime;
}
