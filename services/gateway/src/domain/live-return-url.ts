import { isIP } from 'node:net';
import { isPublicAddress } from '@dzpay/platform';

/**
 * Names that never lead to a host on the internet: the machine itself (`localhost`,
 * RFC 6761), its local network through multicast DNS (`.local`, RFC 6762), home networks
 * (`home.arpa`, RFC 8375) and private networks (`.internal`, reserved by ICANN).
 */
const LOCAL_NAMES: readonly string[] = ['localhost', 'local', 'home.arpa', 'internal'];

/**
 * What keeps a payer of a live payment from being sent to this successUrl or failureUrl,
 * or null when it may: an https URL (the payer's way back carries the order reference and
 * must not be read or changed on the way), without a user or password (they would show in
 * the payer's browser), to a public host. A public host is a name of at least two labels
 * outside the local names above, or an IP address the partner address rules call public
 * (no loopback, private, link-local or other special-purpose block). Names are not
 * resolved: the payer's browser resolves them later, and what they resolve to can change.
 */
export function liveReturnUrlProblem(value: string): string | null {
  if (!URL.canParse(value)) return 'must be an absolute https URL';
  const url = new URL(value);
  if (url.protocol !== 'https:') return 'must be an https URL with a live key';
  if (url.username !== '' || url.password !== '') return 'must not carry a user or password';
  if (!isPublicHost(url.hostname)) {
    return 'must name a public host with a live key, not localhost or a private address';
  }
  return null;
}

/** A URL's hostname as the URL parser leaves it: IPv4 in dotted form, IPv6 in brackets. */
function isPublicHost(hostname: string): boolean {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return isPublicAddress(bare);
  // A trailing dot names the same host (`localhost.`).
  const name = bare.endsWith('.') ? bare.slice(0, -1) : bare;
  // One label is resolved through the payer's own search domains, never on the internet.
  if (!name.includes('.')) return false;
  return !LOCAL_NAMES.some((local) => name === local || name.endsWith(`.${local}`));
}
