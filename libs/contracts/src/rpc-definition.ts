import type { z } from 'zod';

/** One request/reply operation over NATS: its subject and the schemas of both sides. */
export interface RpcDefinition<
  Req extends z.ZodType = z.ZodType,
  Rep extends z.ZodType = z.ZodType,
> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

export function rpc<Req extends z.ZodType, Rep extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Rep,
): RpcDefinition<Req, Rep> {
  return { subject, request, reply };
}
