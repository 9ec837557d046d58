export * from './databases.ts';
export * from './infra.ts';
export * from './isolation.ts';
export * from './processes.ts';
export * from './servers.ts';
export * from './smtp.ts';
export * from './nats-cluster.ts';
