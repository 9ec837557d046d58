import { connect } from '@nats-io/transport-node';
import Fastify from 'fastify';

// The floor of dzpay's shape: every public request crosses the gateway and one NATS
// request/reply to a service. Here that is all there is (no auth, validation, Redis or
// Postgres), responder and HTTP server in one process: no real path can be faster.
const nc = await connect({
  servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  noAsyncTraces: true,
});
const subject = `${process.env.NATS_PREFIX ?? 'bench'}.hop.echo`;
nc.subscribe(subject, {
  callback: (_error, msg) => {
    msg.respond('{"ok":true}');
  },
});
await nc.flush();

const app = Fastify();
app.post('/', async () => (await nc.request(subject, '{}', { timeout: 2_000 })).json());
// What the bench polls to know the server is up.
app.get('/', () => ({ ready: true }));

process.once('SIGTERM', () => void app.close().then(() => nc.drain()));
await app.listen({ host: '127.0.0.1', port: Number(process.env.HTTP_PORT ?? 3001) });
