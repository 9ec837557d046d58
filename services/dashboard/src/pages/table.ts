import { escapeHtml as e } from '@dzpay/platform';

/**
 * A table that stays readable on a phone: the stylesheet's `table.responsive` turns
 * each row into a card whose cells show their column's name (data-label).
 */
export interface Column<Row> {
  label: string;
  /** The cell's HTML (already escaped). */
  cell: (row: Row) => string;
  numeric?: boolean;
}

export function tableHtml<Row>(caption: string, columns: Column<Row>[], rows: readonly Row[]) {
  const head = columns.map((column) => `<th scope="col">${e(column.label)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${columns
          .map(
            (column) =>
              `<td data-label="${e(column.label)}"${column.numeric ? ' class="number"' : ''}>${column.cell(row)}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('\n');
  return `<div class="table-wrap"><table class="responsive"><caption>${e(caption)}</caption>
<thead><tr>${head}</tr></thead>
<tbody>${body}</tbody></table></div>`;
}
