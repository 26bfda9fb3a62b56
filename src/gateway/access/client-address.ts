/**
 * The client's IP address. With `trustedProxies` reverse proxies in front,
 * each appending to X-Forwarded-For, the client is the entry that many hops
 * from the right; entries further left are whatever the client chose to send.
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
  return hops[Math.max(0, hops.length - trustedProxies)] ?? peer;
}
