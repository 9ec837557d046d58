export * from './client.ts';
export * from './transport.ts';
