import { UpstreamAuthError } from '../../errors/upstream-errors.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { Logger } from '../logger.js';

/**
 * Asks for the service token as the gateway starts, so that a wrong client id
 * or secret shows in the log and in /ready at once rather than at the first
 * search. Never fails the start: the upstream may be down for a while, and
 * searches ask again (within the token backoff). With REDIS_URL it first
 * waits for `sharedKnown` (Redis serving or refusing the gateway, or a bounded
 * wait): asked before the store has connected, the token would be asked for
 * alone, one more token call for the fleet.
 */
export async function fetchTokenAtStart(
  upstream: UpstreamClient,
  clientId: string,
  logger: Logger,
  sharedKnown?: Promise<void>,
): Promise<void> {
  try {
    await sharedKnown;
    await upstream.fetchToken();
    logger.info('Got the upstream service token');
  } catch (error) {
    if (error instanceof UpstreamAuthError) {
      // The id, never the secret: the id says which credentials to check.
      logger.error(
        { clientId },
        'Company lookup service refused the client credentials at start: check UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET',
      );
    }
    // Any other failure is the upstream's, already logged by the token manager; searches will ask again.
  }
}
