import { z } from 'zod';

/** Test keys (pk_test_) and live keys (pk_live_) see disjoint data. */
export const Mode = z.enum(['test', 'live']);
export type Mode = z.infer<typeof Mode>;

/** Who a request acts for; every service filters its data by both fields. */
export const MerchantScope = z.object({ merchantId: z.uuid(), mode: Mode });
export type MerchantScope = z.infer<typeof MerchantScope>;
