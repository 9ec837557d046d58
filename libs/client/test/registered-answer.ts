/** The gateway's 201 to POST /api/v1/payments for reference R-1, as both client tests serve it. */
export const REGISTERED_ANSWER = {
  status: 201,
  body: {
    statusCode: 201,
    message: 'Payment registered',
    data: {
      id: '2f1c3a52-6a1e-4a55-9d0f-0f4b8a6e2c11',
      reference: 'R-1',
      amount: 5000,
      fees: 0,
      total: 5000,
      currency: 'DZD',
      language: 'fr',
      status: 'created',
      expiresAt: '2026-11-21T10:15:00.000Z',
      checkoutUrl: 'https://pay.example.dz/checkout/x',
    },
  },
};
