import { startReceipts } from './service.ts';

await startReceipts(process.env);
