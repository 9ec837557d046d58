import { startStatus } from './service.ts';

await startStatus(process.env);
