import type { ActorContext } from './context.ts';

/** The merchant cancels the payment (the API, with its key). */
export async function cancelPayment(
  context: ActorContext,
  merchantIndex: number,
  paymentId: string,
): Promise<string> {
  const merchant = context.merchants[merchantIndex]!;
  const answer = await context.http(`${context.gatewayUrl}/api/v1/payments/${paymentId}/cancel`, {
    headers: { 'x-api-key': merchant.testKey },
    body: '{}',
  });
  if (answer.status === 200) {
    context.acks.cancels.push({ paymentId });
    context.count('cancelsAcknowledged');
  }
  return `cancel ${answer.status}`;
}
