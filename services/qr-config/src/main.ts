import { startQrConfig } from './service.ts';

await startQrConfig(process.env);
