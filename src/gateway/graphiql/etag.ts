/**
 * Whether an If-None-Match header names `etag`, by the weak comparison
 * RFC 9110 (13.1.2) asks for, or is `*`: then the client's copy is current
 * and a 304 answers it. A few lines, where `fresh` would be a dependency.
 */
export function ifNoneMatchNames(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
