// `pnpm docs:receipts`: renders the receipt email of a sample payment in each language
// with the receipts service's own renderer, and saves the HTML and a Chromium screenshot
// of it under docs/receipts/. Run it again after changing the receipt's layout or words.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ReceiptPayment } from '@dzpay/contracts';
import { chromium } from 'playwright-core';
import { renderReceipt } from '../services/receipts/src/domain/receipt.ts';

const out = (file: string) => fileURLToPath(new URL(`../docs/receipts/${file}`, import.meta.url));

const sample: ReceiptPayment = {
  id: '2f1c3a52-6a1e-4a55-9d0f-0f4b8a6e2c11',
  reference: 'CMD-2026-1042',
  amount: 150_050,
  fees: 50,
  total: 155_050,
  currency: 'DZD',
  language: 'fr',
  status: 'success',
  orderId: 'b7c0e6a4-5d1f-4c1e-9a7b-3f2e1d0c9b8a',
  approvalCode: '482910',
  maskedPan: '628058******0009',
  paidAt: '2026-11-21T22:30:00.000Z',
};

// Debian's Chromium, headless, without background traffic (the machine's network is closed).
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  for (const language of ['ar', 'fr', 'en'] as const) {
    const receipt = renderReceipt(sample, 'Librairie El Fath', language);
    await writeFile(out(`receipt-${language}.html`), receipt.html);
    const page = await browser.newPage({ viewport: { width: 640, height: 720 } });
    await page.setContent(receipt.html);
    await page.screenshot({ path: out(`receipt-${language}.png`), fullPage: true });
    await page.close();
    console.log(`docs/receipts/receipt-${language}.png`);
  }
} finally {
  await browser.close();
}
