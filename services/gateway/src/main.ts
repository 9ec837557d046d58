import { startGateway } from './service.ts';

await startGateway(process.env);
