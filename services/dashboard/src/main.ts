import { startDashboard } from './service.ts';

await startDashboard(process.env);
