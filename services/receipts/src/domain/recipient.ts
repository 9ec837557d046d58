/**
 * What the send log keeps of a recipient: the first character of the local part and the
 * domain ("s***@example.dz"). Enough to answer a payer who asks where their receipt
 * went, not enough to mail them again or to build a list of addresses.
 */
export function auditableRecipient(address: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1).toLowerCase();
  const first = Array.from(local)[0] ?? '';
  return `${first}***@${domain}`;
}

/**
 * A mail server's reply with the recipient's address replaced by its auditable form:
 * servers echo the address ("550 <payer@example.dz>: unknown user"), and the log keeps
 * their replies.
 */
export function withoutAddress(reply: string, address: string): string {
  const literal = address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return reply.replace(new RegExp(literal, 'giu'), auditableRecipient(address));
}
