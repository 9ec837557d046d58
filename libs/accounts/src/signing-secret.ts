import { randomBytes } from 'node:crypto';
import { MAX_GRACE_HOURS } from '@dzpay/contracts';

/**
 * The rules of a merchant's webhook signing secret, shared by the admin CLI and the
 * merchant API: how one is made, when the first one is made, and how long the previous
 * one keeps signing after a rotation. Pure: randomness and the clock are given.
 */

/** How long a rotated-out secret keeps signing when nobody says (a day). */
export const DEFAULT_GRACE_HOURS = 24;

/** Random bytes of a new secret: 32, as Standard Webhooks' `whsec_` keys are. */
const SECRET_BYTES = 32;

/** A webhook signing secret in the Standard Webhooks form: `whsec_` and base64 of 32 random bytes. */
export function newSigningSecret(random: (size: number) => Buffer = randomBytes): string {
  return `whsec_${random(SECRET_BYTES).toString('base64')}`;
}

/**
 * What setting up an endpoint does to its signing secret. A secret given by an operator
 * replaces the current one at once (no grace: the operator chose it). Otherwise a secret
 * is made only if the endpoint has none (`onlyIfNone`): a second call, to change a URL,
 * must not cut the partner off; changing a secret is a rotation.
 */
export function firstSigningSecret(
  given: string | undefined,
  random?: (size: number) => Buffer,
): { secret: string; onlyIfNone: boolean; generated: boolean } {
  if (given !== undefined && given !== '')
    return { secret: given, onlyIfNone: false, generated: false };
  return { secret: newSigningSecret(random), onlyIfNone: true, generated: true };
}

/** Why a grace period is refused, or null: whole hours from 0 to MAX_GRACE_HOURS. */
export function graceHoursProblem(graceHours: number): string | null {
  if (!Number.isInteger(graceHours) || graceHours < 0) return 'must be a whole number of hours';
  if (graceHours > MAX_GRACE_HOURS) return `must be at most ${MAX_GRACE_HOURS} hours`;
  return null;
}

/**
 * A rotation: a new secret, and until when the previous one still signs (null with a
 * grace of 0: it stops at once). During the grace the dispatcher signs
 * `webhook-signature` with both, `X-Signature` with the new one.
 */
export function rotateSigningSecret(
  now: Date,
  graceHours: number = DEFAULT_GRACE_HOURS,
  random?: (size: number) => Buffer,
): { secret: string; previousValidUntil: Date | null } {
  const problem = graceHoursProblem(graceHours);
  if (problem !== null) throw new RangeError(`graceHours ${problem}`);
  return {
    secret: newSigningSecret(random),
    previousValidUntil: graceHours === 0 ? null : new Date(now.getTime() + graceHours * 3_600_000),
  };
}
