/** The admin CLI's words for an operator's payout to a merchant in test mode. */
export const payoutRecordArgs = (
  merchantId: string,
  payout: { amount: string; wallet: string; reference: string },
): string[] => [
  'payout',
  'record',
  merchantId,
  '--mode',
  'test',
  '--amount',
  payout.amount,
  '--wallet',
  payout.wallet,
  '--reference',
  payout.reference,
];
