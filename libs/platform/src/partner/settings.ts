import { z } from 'zod';

/**
 * The setting of every service that calls partners' servers (payments, the webhook
 * dispatcher). Off by default: partner requests reach public addresses only. A
 * developer's machine and the tests, whose partner servers listen on 127.0.0.1, turn it
 * on (libs/stack linkEnv); no deployment does (docs/partner-requests.md).
 */
export const PartnerTargetsEnv = z.object({
  PARTNER_ALLOW_PRIVATE_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});
