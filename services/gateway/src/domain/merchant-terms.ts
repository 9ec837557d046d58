import type { MerchantTerms, Mode } from '@dzpay/contracts';
import type { Merchant } from '@dzpay/accounts';

/** What payments needs of a merchant in a mode; the gateway owns it and sends it along. */
export function merchantTerms(merchant: Merchant, mode: Mode): MerchantTerms {
  return {
    merchantId: merchant.id,
    mode,
    name: merchant.name,
    feeDzd: merchant.feeDzd,
    minAmount: merchant.minAmount,
    maxAmount: merchant.maxAmount,
    hasWallet: merchant.walletId !== null,
  };
}
