import { BaseEnv } from '@dzpay/platform';
import { z } from 'zod';

export const QrConfigEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9102),
});
export type QrConfigEnv = z.infer<typeof QrConfigEnv>;
