import type { FastifyInstance } from 'fastify';
import type { CallCounter } from '../call-stats.ts';
import { SandboxCredentials, type CredentialsBook } from '../credentials.ts';
import { FaultRulesBody } from '../domain/faults.ts';
import { ledgerEntry } from '../domain/ledger.ts';
import type { FaultInjector } from '../fault-injector.ts';
import type { OrderBook } from '../order-book.ts';

export interface ControlDeps {
  book: OrderBook;
  clock: () => Date;
  injector: FaultInjector;
  counter: CallCounter;
  credentials: CredentialsBook;
}

/**
 * The control API for tests, under /_control/: fault rules, the credentials the network
 * accepts, the ledger of orders and call statistics, in JSON. Registered only with SANDBOX_CONTROL: SATIM has nothing
 * like it, and nothing but a test may change how the network behaves.
 */
export function controlRoutes(app: FastifyInstance, deps: ControlDeps): void {
  app.put('/_control/faults', (request, reply) => {
    const parsed = FaultRulesBody.safeParse(request.body);
    if (!parsed.success) {
      return reply.code(400).send({ error: 'invalid fault rules', issues: parsed.error.issues });
    }
    deps.injector.replace(parsed.data.rules);
    return { rules: parsed.data.rules };
  });

  app.get('/_control/faults', () => ({ rules: deps.injector.rules() }));

  app.delete('/_control/faults', (_request, reply) => {
    deps.injector.replace([]);
    return reply.code(204).send();
  });

  // Every read applies the session timeout, so the ledger shows the orders as they are now.
  app.get('/_control/ledger', () => ({
    orders: deps.book.all(deps.clock()).map(ledgerEntry),
  }));

  app.get('/_control/stats', () => deps.counter.snapshot());

  // The password is never echoed: an answer of the control API may end up in a test log.
  app.put('/_control/credentials', (request, reply) => {
    const parsed = SandboxCredentials.safeParse(request.body);
    if (!parsed.success) {
      return reply.code(400).send({ error: 'invalid credentials', issues: parsed.error.issues });
    }
    deps.credentials.replace(parsed.data);
    return reply.code(204).send();
  });

  app.delete('/_control/credentials', (_request, reply) => {
    deps.credentials.restore();
    return reply.code(204).send();
  });
}
