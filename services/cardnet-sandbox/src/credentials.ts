import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ACCESS_DENIED, type Params } from './domain/bpc-errors.ts';

/**
 * PUT /_control/credentials: the API credentials the network accepts from now on, in
 * place of the configured ones, so a test can make it refuse the merchant's (rotated,
 * expired or locked out) for a while. `errorMessage` is the text of the refusal
 * (errorCode 5), "Access denied" unless set: BPC also says "The user must change the
 * password" when the API user's password expired.
 */
export const SandboxCredentials = z.strictObject({
  userName: z.string().min(1).max(100),
  password: z.string().min(1).max(100),
  errorMessage: z.string().min(1).max(200).optional(),
});
export type SandboxCredentials = z.infer<typeof SandboxCredentials>;

/** The merchant credentials the REST API takes now, and how it refuses others. */
export interface CredentialsBook {
  accepts(params: Params): boolean;
  /** The errorMessage of errorCode 5 for refused credentials. */
  refusal(): string;
  replace(credentials: SandboxCredentials): void;
  /** Back to the configured credentials. */
  restore(): void;
}

/** Compares digests in constant time, so an answer's timing says nothing about the password. */
export function credentialsBook(configured: {
  userName: string;
  password: string;
}): CredentialsBook {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expect = (credentials: { userName: string; password: string; errorMessage?: string }) => ({
    userName: digest(credentials.userName),
    password: digest(credentials.password),
    refusal: credentials.errorMessage ?? ACCESS_DENIED,
  });
  let current = expect(configured);
  return {
    accepts(params) {
      const userOk = timingSafeEqual(digest(params.userName ?? ''), current.userName);
      const passwordOk = timingSafeEqual(digest(params.password ?? ''), current.password);
      return userOk && passwordOk;
    },
    refusal: () => current.refusal,
    replace(credentials) {
      current = expect(credentials);
    },
    restore() {
      current = expect(configured);
    },
  };
}
