/** The card network sandbox's own view of an order, asked the way payments asks it. */
export async function sandboxOrderStatus(sandboxUrl: string, orderId: string): Promise<number> {
  const response = await fetch(`${sandboxUrl}/payment/rest/getOrderStatusExtended.do`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName: 'sandbox', password: 'sandbox', orderId }).toString(),
  });
  const body = (await response.json()) as { orderStatus: number };
  return body.orderStatus;
}
