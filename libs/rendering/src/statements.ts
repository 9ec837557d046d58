// Monthly statements of a merchant's balance: PDF, CSV and XLSX (filled by the balance work).
export {};
