import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../shared/request-body.js';
import { answeredBeforeHandling } from './api-request.js';
import { sendError, sendJson } from './http-responses.js';
import type { ServiceContext } from './service-context.js';
import { parseTokenRequest } from './token-request.js';

const MAX_TOKEN_REQUEST_BYTES = 16 * 1024;

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** POST /v1/oauth/token: the OAuth 2.0 client_credentials grant, JSON in and out. */
export async function handleTokenRequest(context: ServiceContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  context.counters.tokenRequests += 1;
  if (await answeredBeforeHandling(context, req, res, 'token')) return;
  if (!isJson(req.headers['content-type'])) {
    sendError(res, 415, 'Content-Type must be application/json');
    return;
  }
  const body = await readBody(req, MAX_TOKEN_REQUEST_BYTES);
  if (body === undefined) {
    // Drained rather than the socket destroyed, so that the 413 reaches the client and the connection stays usable.
    req.resume();
    sendError(res, 413, `Request body must not exceed ${MAX_TOKEN_REQUEST_BYTES} bytes`);
    return;
  }
  const check = parseTokenRequest(body);
  if (!check.ok) {
    sendError(res, 400, check.message);
    return;
  }
  if (!context.credentialsMatch(check.credentials)) {
    sendError(res, 401, 'Invalid client credentials');
    return;
  }
  const lifetimeSeconds = context.knobs.tokenLifetimeSeconds;
  const accessToken = context.tokens.issue(lifetimeSeconds * 1000);
  context.counters.tokensIssued += 1;
  const answer = { access_token: accessToken, token_type: 'Bearer', expires_in: Math.ceil(lifetimeSeconds) };
  const { mapTokenAnswer } = context.knobs;
  sendJson(res, 200, mapTokenAnswer === undefined ? answer : mapTokenAnswer(answer), { 'cache-control': 'no-store' });
}
