import { PaymentView, RegisteredPayment } from '@dzpay/contracts';
import { CARDS, payByHttp } from './payer.ts';
import type { Stack } from './stack.ts';

/** The `data` of an API answer, after checking its status. */
async function dataOf(response: Response, status: number): Promise<unknown> {
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: unknown }).data;
}

/** A payment as the API reads it with `apiKey`. */
export async function readPayment(stack: Stack, apiKey: string, id: string): Promise<PaymentView> {
  const response = await stack.get(`/api/v1/payments/${id}`, { 'x-api-key': apiKey });
  return PaymentView.parse(await dataOf(response, 200));
}

/** A checkout payment registered over HTTP with `apiKey`, paid with the approved card. */
export async function paidPayment(
  stack: Stack,
  apiKey: string,
  payment: { amount: number; reference: string },
): Promise<PaymentView> {
  const response = await stack.post(
    '/api/v1/payments',
    {
      ...payment,
      currency: 'DZD',
      successUrl: 'https://shop.example/ok',
      failureUrl: 'https://shop.example/ko',
    },
    { 'x-api-key': apiKey },
  );
  const registered = RegisteredPayment.parse(await dataOf(response, 201));
  await payByHttp(registered.checkoutUrl, CARDS.approved);
  return readPayment(stack, apiKey, registered.id);
}
