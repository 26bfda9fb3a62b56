import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerWithFault } from './fault-responses.js';
import type { Endpoint } from './fault-responses.js';
import { sendError } from './http-responses.js';
import type { ServiceContext } from './service-context.js';

/**
 * What every API request goes through before its own handling: the quota
 * (decided on arrival, answered at once), then an injected fault (also chosen
 * on arrival, so "the next n requests" follows arrival order), then the
 * configured latency. True when the request has been answered by one of them.
 */
export async function answeredBeforeHandling(
  context: ServiceContext,
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: Endpoint,
): Promise<boolean> {
  const { knobs } = context;
  if (!knobs.admitRequest()) {
    sendError(res, 429, 'Request quota exceeded');
    return true;
  }
  const fault = endpoint === 'token' ? knobs.takeTokenFault() : knobs.takeSearchFault();
  const latencyMs = endpoint === 'token' ? knobs.tokenLatencyMs : knobs.searchLatencyMs;
  if (latencyMs > 0) await sleep(latencyMs, undefined, { signal: context.closing });
  if (fault === undefined) return false;
  answerWithFault(req, res, fault, endpoint);
  return true;
}
