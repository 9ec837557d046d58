export * from './errors.ts';
export * from './envelopes.ts';
export * from './money.ts';
export * from './qr.ts';
export * from './rpc.ts';
export * from './scope.ts';
export * from './validation.ts';
