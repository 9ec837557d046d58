import { startSandbox } from './service.ts';

await startSandbox(process.env);
