import { PartnerError, PartnerProduct, type PartnerEndpoint } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';

/** With the card network's 6 s, inside the gateway's 12 s wait for payments. */
const LOOKUP_TIMEOUT_MS = 4_000;

/**
 * GET {API_URL}/{reference} on the partner's server (ARCHITECTURE §6). Every way it can
 * go wrong is one of three clear codes; none of them takes a lock.
 */
export async function lookupProduct(
  partner: PartnerEndpoint,
  reference: string,
): Promise<PartnerProduct> {
  // `.` and `..` are not encoded and a URL resolves them: {API_URL}/.. would ask the
  // partner's parent path, with its secret. No product is called that.
  if (/^\.{1,2}$/.test(reference)) {
    throw new AppError(
      'PARTNER404_PRODUCT_NOT_FOUND',
      'the partner knows no product with this reference',
      {
        details: { reference },
      },
    );
  }
  const url = `${partner.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(reference)}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: {
        authorization: `Bearer ${partner.apiSecret}`,
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        accept: 'application/json',
      },
      redirect: 'error',
      signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
    });
  } catch (error) {
    throw unavailable('the partner did not answer', error);
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) {
    const product = PartnerProduct.safeParse(body);
    if (!product.success) throw unavailable('the partner answered something that is not a product');
    return product.data;
  }
  const partnerError = PartnerError.safeParse(body);
  const code = partnerError.success ? partnerError.data.error : null;
  if (response.status === 404 || code === 'NOT_FOUND') {
    throw new AppError(
      'PARTNER404_PRODUCT_NOT_FOUND',
      'the partner knows no product with this reference',
      {
        details: { reference },
      },
    );
  }
  if (response.status === 409 || code === 'ALREADY_PAID') {
    throw new AppError(
      'PARTNER409_ALREADY_PAID',
      'the partner says this reference is already paid',
      {
        details: { reference },
      },
    );
  }
  throw unavailable(`the partner answered ${response.status}`);
}

function unavailable(message: string, cause?: unknown): AppError {
  return new AppError('PARTNER503_UNAVAILABLE', message, { cause });
}
