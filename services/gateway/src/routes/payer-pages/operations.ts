import { page, payerPage, type OperationSpec } from '../shared/operation-spec.ts';

/** The payer's pages: checkout, product references and QR codes. */
export const PAYER_PAGES: readonly OperationSpec[] = [
  payerPage({
    method: 'get',
    path: '/checkout/{token}',
    operationId: 'checkoutPage',
    summary: 'The hosted checkout page of a payment',
    params: { token: 'the checkout token from checkoutUrl' },
    query: { lang: 'ar, fr or en' },
    responses: {
      200: page('the checkout page, or the result of a finished payment'),
      404: page('an unknown link (CHECKOUT404_NOT_FOUND)'),
    },
  }),
  payerPage({
    method: 'post',
    path: '/checkout/{token}/pay',
    operationId: 'checkoutPay',
    summary: "Start paying: redirects to the card network's form",
    params: { token: 'the checkout token' },
    body: { form: 'no fields' },
    responses: {
      303: { description: "to the card network's card form", redirect: true },
      404: page('an unknown link'),
    },
  }),
  payerPage({
    method: 'get',
    path: '/checkout/return/{paymentId}',
    operationId: 'checkoutReturn',
    summary: 'Where the card network sends the payer back',
    params: { paymentId: 'the payment id' },
    query: { lang: 'ar, fr or en' },
    responses: {
      303: {
        description: 'to successUrl or failureUrl, with `reference` appended',
        redirect: true,
      },
      200: page('the result, when the merchant gave no URL'),
    },
  }),
  payerPage({
    method: 'get',
    path: '/pay/{merchantId}',
    operationId: 'productForm',
    summary: "A form to type a partner's product reference",
    params: { merchantId: 'the merchant id' },
    query: { lang: 'ar, fr or en', mode: 'test or live', reference: 'the reference typed' },
    responses: {
      200: page('the form'),
      303: { description: 'to the reference page', redirect: true },
    },
  }),
  payerPage({
    method: 'get',
    path: '/pay/{merchantId}/{reference}',
    operationId: 'productPage',
    summary: "A partner's product, looked up on the partner's server",
    params: { merchantId: 'the merchant id', reference: 'the product reference' },
    query: { lang: 'ar, fr or en', mode: 'test or live' },
    responses: {
      200: page('the product and a pay button'),
      404: page('the partner does not know the reference (PARTNER404_PRODUCT_NOT_FOUND)'),
      409: page('already paid (PARTNER409_ALREADY_PAID) or being paid (REFERENCE409_LOCKED)'),
      503: page('the partner server is unavailable (PARTNER503_UNAVAILABLE)'),
    },
  }),
  payerPage({
    method: 'post',
    path: '/pay/{merchantId}/{reference}',
    operationId: 'productPay',
    summary: 'Pay a product: locks the reference and opens a checkout for it',
    params: { merchantId: 'the merchant id', reference: 'the product reference' },
    query: { lang: 'ar, fr or en', mode: 'test or live' },
    body: { form: 'no fields' },
    responses: {
      303: {
        description: 'to the checkout page of the attempt now holding the reference',
        redirect: true,
      },
      409: page('the reference is being paid or was paid'),
    },
  }),
  payerPage({
    method: 'get',
    path: '/qr/{token}',
    operationId: 'qrPage',
    summary: 'A static QR code: its amount, or a choice of amounts',
    params: { token: 'the QR code token' },
    query: { lang: 'ar, fr or en' },
    responses: {
      200: page('the amount(s) to pay; nothing to pay for an unknown, empty or expired code'),
    },
  }),
  payerPage({
    method: 'post',
    path: '/qr/{token}',
    operationId: 'qrPay',
    summary: 'Pay a QR code amount',
    params: { token: 'the QR code token' },
    query: { lang: 'ar, fr or en' },
    body: { form: '`choice`: the index of the chosen amount' },
    responses: {
      303: {
        description:
          'to the checkout page of the new attempt (back to the code when no amount was chosen)',
        redirect: true,
      },
      409: page('a single-use code being paid'),
    },
  }),
];
