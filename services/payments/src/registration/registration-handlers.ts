import { Rpc } from '@dzpay/contracts';
import { serveRpc, type RpcServer } from '@dzpay/platform';
import type { ServedContext } from '../context.ts';
import { paymentRegistration } from './register-payment.ts';
import { registrationWriter } from './registration-writer.ts';

/** payments.register: a hosted-checkout payment, answered once it is committed. */
export async function serveRegistrationHandlers(ctx: ServedContext): Promise<RpcServer[]> {
  const writer = registrationWriter(ctx.sql, ctx.keys.seal, ctx.clock);
  return [
    await serveRpc(
      ctx.nats,
      ctx.prefix,
      Rpc.paymentsRegister,
      paymentRegistration(ctx, writer),
      ctx.logger,
    ),
  ];
}
