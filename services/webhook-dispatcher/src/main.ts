import { startWebhookDispatcher } from './service.ts';

await startWebhookDispatcher(process.env);
