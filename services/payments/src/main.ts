import { startPayments } from './service.ts';

await startPayments(process.env);
