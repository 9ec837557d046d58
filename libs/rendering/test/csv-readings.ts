/**
 * A CSV file as every spreadsheet that may open it reads it: by commas or by semicolons
 * (an English Excel opens the spreadsheet dialect, a French one the standard dialect),
 * each either by RFC 4180 (quotes honoured) or by a naive split on the separator (a
 * quote that does not open a field, or a reader that ignores quotes).
 */

type Separator = ',' | ';';

/** RFC 4180, leniently as Excel reads it: a quote opens a field only at its start. */
function rfc4180Fields(text: string, separator: Separator): string[] {
  const fields: string[] = [];
  let field = '';
  let started = false;
  let quoted = false;
  const end = () => {
    fields.push(field);
    field = '';
    started = false;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        field += char;
      }
    } else if (char === '"' && !started) {
      quoted = true;
      started = true;
    } else if (char === separator) {
      end();
    } else if (char === '\r' && text[i + 1] === '\n') {
      end();
      i++;
    } else {
      field += char;
      started = true;
    }
  }
  if (started || field !== '') end();
  return fields;
}

function naiveFields(text: string, separator: Separator): string[] {
  return text.split('\r\n').flatMap((line) => line.split(separator));
}

/** Every field of every reading of the file, the reading named with each. */
function everyReading(text: string): { reading: string; field: string }[] {
  const body = text.replace(/^\uFEFF/, '');
  return (
    [
      ['RFC 4180 by ","', rfc4180Fields(body, ',')],
      ['RFC 4180 by ";"', rfc4180Fields(body, ';')],
      ['split on ","', naiveFields(body, ',')],
      ['split on ";"', naiveFields(body, ';')],
    ] as const
  ).flatMap(([reading, fields]) => fields.map((field) => ({ reading, field })));
}

/** A plain number (an amount, a count): a spreadsheet reads it as a number, not a formula. */
const NUMBER = /^-?\d+([.,]\d+)?$/;
/** What a spreadsheet runs as a formula: = + - @, a tab or a CR first (past spaces and quotes). */
const FORMULA = /^[ "]*[=+\-@\t\r]/;

/** The fields some reading of the file would run as formulas (none, in a safe file). */
export function formulasIn(text: string): { reading: string; field: string }[] {
  return everyReading(text).filter(({ field }) => FORMULA.test(field) && !NUMBER.test(field));
}

/** The fields of the file read by its own dialect's separator (RFC 4180). */
export function fieldsOf(text: string, separator: Separator): string[] {
  return rfc4180Fields(text.replace(/^\uFEFF/, ''), separator);
}
