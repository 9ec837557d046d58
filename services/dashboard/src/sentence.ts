/**
 * Ends a sentence that may end with an amount: Arabic amounts end with the currency's
 * own period ("1.500,50 د.ج." and a right-to-left mark), which must not be doubled.
 */
export function endSentence(text: string): string {
  return text.replace(/[\u200e\u200f]+$/u, '').endsWith('.') ? text : `${text}.`;
}
