import { Rpc } from '@dzpay/contracts';
import { serveRpc, type RpcServer } from '@dzpay/platform';
import type { ServedContext } from '../context.ts';
import { paymentView } from '../domain/payment-record.ts';
import { paymentCanceller } from './cancel-payment.ts';

/** payments.cancel: the merchant cancels a hosted-checkout payment not paid yet. */
export async function serveCancelHandlers(ctx: ServedContext): Promise<RpcServer[]> {
  const cancel = paymentCanceller(ctx);
  return [
    await serveRpc(
      ctx.nats,
      ctx.prefix,
      Rpc.paymentsCancel,
      async ({ merchantId, mode, id }) => paymentView(await cancel({ merchantId, mode }, id)),
      ctx.logger,
    ),
  ];
}
