import type { Clock } from '../../upstream/resilience/clock.js';
import { exponentialDelay, FailureBackoff } from '../../upstream/resilience/failure-backoff.js';

/** After a failed JWKS fetch, none is made for this long, doubling with each failure in a row ... */
export const JWKS_BACKOFF_BASE_MS = 1_000;
/** ... up to this: a JWKS server that is down is asked a few times a minute, not once per request. */
export const JWKS_BACKOFF_MAX_MS = 30_000;
/** Far above any real key set (a few KiB); a larger answer is refused rather than read. */
export const MAX_JWKS_BYTES = 256 * 1024;

/** The keys to check the token with could not be fetched; not the client's fault. The client gets an AuthUnavailableError. */
export class TokenKeysUnavailableError extends Error {
  override readonly name = 'TokenKeysUnavailableError';
}

/**
 * The fetch jose gets its keys with. jose refetches on every check while it
 * has no keys (or only expired ones) and keeps no memory of failures, so a
 * JWKS server that is down was asked once per request; here every failure
 * (no connection, a timeout, a status other than 200, a body too large, not
 * JSON or without a `keys` array) holds fetching back, exponentially, and
 * each check meanwhile fails at once. Only what happens on the way to the
 * keys is the gateway's problem (503); a timeout stays as jose reports it
 * (JWKSTimeout).
 */
export function createKeyFetcher(clock?: Clock): typeof fetch {
  const backoff = new FailureBackoff<unknown>(
    (_error, failures) => exponentialDelay(JWKS_BACKOFF_BASE_MS, JWKS_BACKOFF_MAX_MS)(failures),
    clock,
  );
  return async (input, init) => {
    const held = backoff.held();
    if (held) throw held;
    try {
      const response = await fetch(input, init);
      const body = await keySetBody(response, String(input));
      backoff.succeed();
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    } catch (error) {
      const failure =
        error instanceof TokenKeysUnavailableError || (error instanceof Error && error.name === 'TimeoutError')
          ? error
          : new TokenKeysUnavailableError(`fetching ${String(input)} failed: ${error instanceof Error ? error.message : String(error)}`, {
              cause: error,
            });
      backoff.fail(failure);
      throw failure;
    }
  };
}

/** The body of a 200 that holds a key set, read no further than MAX_JWKS_BYTES. */
async function keySetBody(response: Response, url: string): Promise<string> {
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new TokenKeysUnavailableError(`fetching ${url} answered ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_JWKS_BYTES) {
      await reader.cancel();
      throw new TokenKeysUnavailableError(`fetching ${url} answered more than ${MAX_JWKS_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  let keys: unknown;
  try {
    keys = (JSON.parse(body) as { keys?: unknown } | null)?.keys;
  } catch {
    throw new TokenKeysUnavailableError(`fetching ${url} answered a body that is not JSON`);
  }
  if (!Array.isArray(keys)) throw new TokenKeysUnavailableError(`fetching ${url} answered JSON without a keys array`);
  return body;
}
