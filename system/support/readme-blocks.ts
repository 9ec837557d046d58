import { readFile } from 'node:fs/promises';

/** A fenced code block of a Markdown file: its language and its text. */
export interface ReadmeBlock {
  language: string;
  code: string;
}

/** Every fenced block of a Markdown file, in order. */
export async function readmeBlocks(file: string | URL): Promise<ReadmeBlock[]> {
  const text = await readFile(file, 'utf8');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map(([, language, code]) => ({
    language: language ?? '',
    code: code ?? '',
  }));
}

/**
 * The one block of `language` that contains `marker`: a README's example as a reader
 * copies it. Throws when none or several match, so a README edit that drops or
 * duplicates a step fails the walk-through instead of skipping it.
 */
export function blockWith(blocks: ReadmeBlock[], language: string, marker: string): string {
  const found = blocks.filter(
    (block) => block.language === language && block.code.includes(marker),
  );
  if (found.length !== 1) {
    throw new Error(
      `expected one ${language} block with ${JSON.stringify(marker)}, found ${found.length}`,
    );
  }
  return found[0]!.code;
}

/** `code` with each `[from, to]` replaced everywhere; each `from` must occur. */
export function substitute(code: string, replacements: [string, string][]): string {
  return replacements.reduce((text, [from, to]) => {
    if (!text.includes(from)) throw new Error(`${JSON.stringify(from)} is not in:\n${text}`);
    return text.split(from).join(to);
  }, code);
}
