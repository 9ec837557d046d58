import Fastify from 'fastify';

// The baseline: the same HTTP framework as the gateway with nothing on top (no logger,
// auth, rate limit, NATS or Postgres), i.e. the most this machine can serve.
const app = Fastify();
app.get('/', (_request, reply) => reply.send({ hello: 'world' }));

process.once('SIGTERM', () => void app.close());
await app.listen({ host: '127.0.0.1', port: Number(process.env.HTTP_PORT ?? 3000) });
