import { isIP } from 'node:net';
import type { Client } from './client-access.js';

/**
 * The client's IP address. With `trustedProxies` reverse proxies in front,
 * each appending to X-Forwarded-For, the client is the entry that many hops
 * from the right; entries further left are whatever the client chose to send.
 * A chosen entry that is not an IP address (a port, `unknown`, garbage) is no
 * address to count a client by, so the socket's is taken instead.
 */
export function clientAddress(
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: number,
): string {
  const peer = remoteAddress ?? 'unknown';
  if (trustedProxies === 0 || forwardedFor === undefined) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  const hop = hops[Math.max(0, hops.length - trustedProxies)];
  return hop !== undefined && isIP(hop) !== 0 ? hop : peer;
}

/**
 * Whom a request whose credentials failed is counted against by the rate
 * limit: its address, so that guessing keys is rate limited too; and where
 * X-Forwarded-For named another address than the peer's, the peer as well. A
 * client that writes the header itself (one that reaches the gateway past its
 * proxy) names a new address with each guess, on one connection or many, but
 * never a new peer. Behind a real proxy, the clients it forwards share the
 * proxy's count of failures: requests with valid credentials never touch it.
 * `address` as networkOf gives it.
 */
export function failedAttemptClients(address: string, peerAddress: string | undefined): Client[] {
  const byAddress: Client = { kind: 'anonymous', key: `ip:${address}` };
  const peer = networkOf(peerAddress ?? 'unknown');
  return peer === address ? [byAddress] : [byAddress, { kind: 'anonymous', key: `peer:${peer}` }];
}

/**
 * What anonymous clients are counted by: an IPv4 address itself, an IPv6
 * address by its /64 prefix (one subscriber's network holds 2^64 addresses to
 * rotate through), an IPv4-mapped IPv6 address as the IPv4 address it maps.
 */
export function networkOf(address: string): string {
  // Every IPv6 address has a colon: an IPv4 address (nearly every client's) is itself, without a split or a parse.
  if (!address.includes(':')) return address;
  const zoneless = address.split('%', 1)[0]!;
  if (isIP(zoneless) !== 6) return address;
  const groups = ipv6Groups(zoneless);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  // The URL parser writes an IPv6 address in its canonical short form.
  return `${new URL(
    `http://[${groups
      .slice(0, 4)
      .map((group) => group.toString(16))
      .join(':')}::]`,
  ).hostname.slice(1, -1)}/64`;
}

/** The eight 16-bit groups of a valid IPv6 address. */
function ipv6Groups(address: string): number[] {
  // The URL parser writes any IPv6 address (an IPv4 tail included) as hexadecimal groups, `::` at most once.
  const [head = '', tail] = new URL(`http://[${address}]`).hostname.slice(1, -1).split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
