import type { z } from 'zod';

/** One request/reply operation over NATS: its subject and the schemas of both sides. */
export interface RpcDefinition<
  Req extends z.ZodType = z.ZodType,
  Rep extends z.ZodType = z.ZodType,
> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
  /**
   * Asking twice does what asking once does (a read, or a call keyed so a repeat finds
   * the first): a caller whose try got no answer (the replica that took it died, or no
   * replica was subscribed for a moment) may ask again, and another replica answers.
   */
  readonly idempotent: boolean;
}

export interface RpcTraits {
  idempotent?: boolean;
}

export function rpc<Req extends z.ZodType, Rep extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Rep,
  traits: RpcTraits = {},
): RpcDefinition<Req, Rep> {
  return { subject, request, reply, idempotent: traits.idempotent ?? false };
}

/** The traits of a read: it changes nothing, so it may be asked again. */
export const READ: RpcTraits = { idempotent: true };
