import { readFileSync } from 'node:fs';

/** A Markdown table: its header cells and its rows' cells, trimmed. */
export interface MarkdownTable {
  header: string[];
  rows: string[][];
}

/** The text of a page of docs/, by its name there (`errors.md`). */
export function readDoc(name: string): string {
  return readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
}

/** Every table of a Markdown text, in order. */
function tablesOf(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  let lines: string[] = [];
  for (const line of [...markdown.split('\n'), '']) {
    if (line.trimStart().startsWith('|')) {
      lines.push(line);
      continue;
    }
    if (lines.length >= 2) tables.push(tableOf(lines));
    lines = [];
  }
  return tables;
}

/** The tables whose first header cell is `firstColumn`, wherever they are on the page. */
export function tablesStartingWith(markdown: string, firstColumn: string): MarkdownTable[] {
  return tablesOf(markdown).filter((table) => table.header[0] === firstColumn);
}

/** What a cell names: the text between its backquotes when it is one code span. */
export function codeOf(cell: string): string {
  return /^`([^`]+)`$/.exec(cell)?.[1] ?? cell;
}

/** The values that appear more than once. */
export function repeated(values: readonly string[]): string[] {
  return [...new Set(values.filter((value, index) => values.indexOf(value) !== index))];
}

function tableOf(lines: string[]): MarkdownTable {
  const [header = [], , ...rows] = lines.map(cellsOf);
  return { header, rows };
}

/** A row's cells; `\|` inside a cell is a pipe, not a border. */
function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll('\\|', '|'));
}
