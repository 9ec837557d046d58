// @dzpay/testkit: what dzpay's tests start and share. This entry loads vitest; the
// subpaths (`@dzpay/testkit/servers`, …) do not, for tools run by plain `node`.

// Each test file's own database, Redis prefix and NATS prefix.
export { isolatedInfra, type IsolatedInfra } from './isolation.ts';

// Servers started for a test: NATS, Redis, and a mail catcher.
export {
  startRedisServer,
  startSecuredNatsServer,
  type LocalNatsServer,
  type LocalRedisServer,
} from './servers.ts';
export { startMailCatcher, type MailCatcher } from './smtp.ts';

// dzpay's services run as child processes, on ports of their own.
export { freePort, spawnService, type ServiceProcess } from './processes.ts';

// Clients that stop sending, over raw TCP: the limits every HTTP server of dzpay holds.
export {
  bodyThatStalls,
  expectDroppedAt,
  expectIdleClosedAt,
  headersThatStall,
  idleAfterAnswer,
  limitsOf,
  SHORT_LIMITS,
  type ServerLimits,
  type Silence,
} from './stalled-requests.ts';
