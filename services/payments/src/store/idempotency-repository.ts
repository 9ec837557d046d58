import { randomUUID } from 'node:crypto';
import type { MerchantScope } from '@dzpay/contracts';
import { openSecret, sealSecret, type Sql } from '@dzpay/platform';

/** What an Idempotency-Key's claim found. */
export type Claim =
  /**
   * The request runs the key as `owner`. `paymentId`: the payment an earlier try of a
   * registration committed under this key before it died unanswered (see
   * payments-repository `insert`), null when there is none.
   */
  | { kind: 'claimed'; owner: string; paymentId: string | null }
  | { kind: 'replay'; response: unknown }
  | { kind: 'mismatch' }
  | { kind: 'in-progress' };

/** The answer a request left for its key's retries: a value, or a definite error. */
export type StoredAnswer =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: string; message: string; details?: unknown } };

/**
 * Idempotency keys (table idempotency_keys). A request that runs a key holds a lease on
 * it and renews it while it runs; a retry takes the key over only when the lease ran
 * out: its first request stopped without an answer worth replaying, or its process died.
 *
 * The answer to replay is kept sealed under `secretsKey` (a registration's answer holds
 * the checkout token, stored nowhere else but hashed); `response` keeps only its outcome.
 */
export function idempotencyRepository(sql: Sql, secretsKey: Buffer) {
  const until = (leaseMs: number) => sql`now() + ${leaseMs} * interval '1 millisecond'`;
  // Bound to its key: a sealed answer copied to another row does not open.
  const ownerOf = (scope: MerchantScope, key: string) =>
    `idempotency:${scope.merchantId}:${scope.mode}:${key}`;
  const outcomeOf = (answer: StoredAnswer) =>
    answer.ok ? { ok: true } : { ok: false, code: answer.error.code };

  /** The answer as a key keeps it: its outcome in clear, the whole of it sealed. */
  const seal = (scope: MerchantScope, key: string, answer: StoredAnswer) => ({
    response: outcomeOf(answer),
    sealed: sealSecret(JSON.stringify(answer), secretsKey, ownerOf(scope, key)),
  });

  return {
    seal,

    /**
     * Claims a key for a request, or says what an earlier one left: its answer to
     * replay, a mismatch (same key, other body), or that it may still be running.
     */
    async claim(
      scope: MerchantScope,
      key: string,
      fingerprint: string,
      leaseMs: number,
    ): Promise<Claim> {
      const owner = randomUUID();
      const taken = await sql<{ payment_id: string | null }[]>`
        insert into idempotency_keys (merchant_id, mode, key, fingerprint, owner, lease_until)
        values (${scope.merchantId}, ${scope.mode}, ${key}, ${fingerprint}, ${owner}, ${until(leaseMs)})
        on conflict (merchant_id, mode, key) do update
          set owner = excluded.owner, lease_until = excluded.lease_until
          where idempotency_keys.response is null
            and idempotency_keys.fingerprint = excluded.fingerprint
            and (idempotency_keys.lease_until is null or idempotency_keys.lease_until < now())
        returning payment_id`;
      if (taken[0]) return { kind: 'claimed', owner, paymentId: taken[0].payment_id };
      const [row] = await sql<
        { fingerprint: string; response: unknown; response_sealed: Buffer | null }[]
      >`
        select fingerprint, response, response_sealed from idempotency_keys
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key}`;
      if (!row) return { kind: 'in-progress' };
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.response === null) return { kind: 'in-progress' };
      // Rows from before migration 007 hold their answer in clear until forgotten.
      if (row.response_sealed === null) return { kind: 'replay', response: row.response };
      const opened = openSecret(row.response_sealed, secretsKey, ownerOf(scope, key));
      return { kind: 'replay', response: JSON.parse(opened) as unknown };
    },

    /** Extends the lease of a key this request runs; false when it is not its own any more. */
    async renew(scope: MerchantScope, key: string, owner: string, leaseMs: number) {
      const rows = await sql`
        update idempotency_keys set lease_until = ${until(leaseMs)}
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key}
          and owner = ${owner} and response is null
        returning 1`;
      return rows.length === 1;
    },

    /**
     * Stores the answer to replay, sealed; only the request that holds the key may. False
     * when it does not any more (a retry took it over): that answer must not be sent.
     */
    async store(
      scope: MerchantScope,
      key: string,
      owner: string,
      answer: StoredAnswer,
    ): Promise<boolean> {
      const { response, sealed } = seal(scope, key, answer);
      const rows = await sql`
        update idempotency_keys
        set response = ${sql.json(response)}, response_sealed = ${sealed},
            lease_until = null
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key}
          and owner = ${owner} and response is null
        returning 1`;
      return rows.length === 1;
    },

    /**
     * Lets go of a key whose request stopped without an answer worth replaying (retry
     * later): the key stays bound to its body, and a retry may take it over at once.
     */
    async letGo(scope: MerchantScope, key: string, owner: string) {
      await sql`
        update idempotency_keys set lease_until = now()
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key}
          and owner = ${owner} and response is null`;
    },

    /**
     * Keys are replayed for 24 hours (ARCHITECTURE.md §6), then forgotten: at most
     * `limit` of them at a time, never one whose request still runs.
     */
    async forget(olderThan: Date, limit: number): Promise<number> {
      const rows = await sql`
        delete from idempotency_keys where (merchant_id, mode, key) in (
          select merchant_id, mode, key from idempotency_keys
          where created_at < ${olderThan} and (lease_until is null or lease_until < now())
          order by created_at
          limit ${limit}
          for update skip locked)
        returning 1`;
      return rows.length;
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;
