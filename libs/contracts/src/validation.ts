import type { z } from 'zod';

/**
 * Turns zod issues into the spec's validation-list messages: one message per failed
 * rule, in the order the fields were checked, without repeats (a rule broken by three
 * elements of an array is one message).
 *
 * A required string that is missing breaks two rules at once, exactly as the spec lists
 * them for un-set-qr-config ("token must be a string", "token should not be empty"), so
 * both are reported; a missing required array likewise breaks "must contain at least 1
 * element" (every required array of the API needs one). Parse with `{ reportInput: true }` so the missing input is visible.
 */
export function validationMessages(issues: readonly z.core.$ZodIssue[]): string[] {
  const messages: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) messages.push(`property ${key} should not exist`);
      continue;
    }
    const field = issue.path.map(String).join('.');
    const missing = issue.code === 'invalid_type' && (issue as { input?: unknown }).input == null;
    if (missing && issue.expected === 'string') messages.push(`${field} should not be empty`);
    messages.push(issue.message);
    if (missing && issue.expected === 'array') {
      messages.push(`${field} must contain at least 1 element`);
    }
  }
  return [...new Set(messages)];
}

/** Whether a request body is a JSON object (not an array, string, number or null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Text that can be stored and echoed as sent: well-formed Unicode (no lone surrogate,
 * which would come back as U+FFFD) and no control characters (Postgres refuses NUL).
 */
export const cleanText = (value: string) => value.isWellFormed() && !CONTROL.test(value);
