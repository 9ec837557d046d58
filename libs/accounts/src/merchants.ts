import type { Sql } from '@dzpay/platform';

export interface Merchant {
  id: string;
  name: string;
  active: boolean;
  /** Whole DZD added to every payment. */
  feeDzd: number;
  /** Accepted payment amounts, in centimes. */
  minAmount: number;
  maxAmount: number;
  walletId: string | null;
  /** Receipt emails this merchant may send per hour. */
  receiptEmailsPerHour: number;
  createdAt: Date;
}

/** The settings of a merchant an admin may change. */
export type MerchantTermsPatch = Partial<
  Pick<
    Merchant,
    'name' | 'feeDzd' | 'minAmount' | 'maxAmount' | 'walletId' | 'receiptEmailsPerHour'
  >
>;

export interface MerchantRow {
  id: string;
  name: string;
  active: boolean;
  fee_dzd: number;
  min_amount: number;
  max_amount: number;
  wallet_id: string | null;
  receipt_emails_per_hour: number;
  created_at: Date;
}

const MERCHANT_COLUMNS = [
  'id',
  'name',
  'active',
  'fee_dzd',
  'min_amount',
  'max_amount',
  'wallet_id',
  'receipt_emails_per_hour',
  'created_at',
];

export const toMerchant = (row: MerchantRow): Merchant => ({
  id: row.id,
  name: row.name,
  active: row.active,
  feeDzd: row.fee_dzd,
  minAmount: row.min_amount,
  maxAmount: row.max_amount,
  walletId: row.wallet_id,
  receiptEmailsPerHour: row.receipt_emails_per_hour,
  createdAt: row.created_at,
});

/** The merchants table: who takes payments through dzpay, on which terms. */
export function merchantsTable(sql: Sql) {
  const table = {
    async createMerchant(name: string): Promise<Merchant> {
      const [row] = await sql<MerchantRow[]>`
        insert into merchants (name) values (${name}) returning ${sql(MERCHANT_COLUMNS)}`;
      return toMerchant(row!);
    },

    async listMerchants(): Promise<Merchant[]> {
      const rows = await sql<MerchantRow[]>`
        select ${sql(MERCHANT_COLUMNS)} from merchants order by created_at`;
      return rows.map(toMerchant);
    },

    async findMerchant(id: string): Promise<Merchant | null> {
      const rows = await sql<MerchantRow[]>`
        select ${sql(MERCHANT_COLUMNS)} from merchants where id = ${id}`;
      return rows[0] ? toMerchant(rows[0]) : null;
    },

    /** Returns false when there is no such merchant. */
    async setMerchantActive(id: string, active: boolean): Promise<boolean> {
      const rows = await sql`
        update merchants set active = ${active}, updated_at = now() where id = ${id} returning id`;
      return rows.length === 1;
    },

    /** Changes a merchant's terms; null when there is no such merchant. */
    async updateMerchantTerms(id: string, patch: MerchantTermsPatch): Promise<Merchant | null> {
      const columns = Object.fromEntries(
        Object.entries({
          name: patch.name,
          fee_dzd: patch.feeDzd,
          min_amount: patch.minAmount,
          max_amount: patch.maxAmount,
          wallet_id: patch.walletId,
          receipt_emails_per_hour: patch.receiptEmailsPerHour,
        }).filter(([, value]) => value !== undefined),
      );
      if (Object.keys(columns).length === 0) return table.findMerchant(id);
      const rows = await sql<MerchantRow[]>`
        update merchants set ${sql(columns)}, updated_at = now() where id = ${id}
        returning ${sql(MERCHANT_COLUMNS)}`;
      return rows[0] ? toMerchant(rows[0]) : null;
    },
  };
  return table;
}

export type MerchantsTable = ReturnType<typeof merchantsTable>;
