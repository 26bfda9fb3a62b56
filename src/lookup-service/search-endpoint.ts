import type { IncomingMessage, ServerResponse } from 'node:http';
import { answeredBeforeHandling } from './api-request.js';
import { readBearerToken } from './bearer-token.js';
import { sendError, sendJson } from './http-responses.js';
import { parseSearchParameters } from './search-parameters.js';
import type { ServiceContext } from './service-context.js';

function rawQueryString(requestTarget: string): string {
  const questionMark = requestTarget.indexOf('?');
  return questionMark === -1 ? '' : requestTarget.slice(questionMark + 1);
}

function authorisationProblem(context: ServiceContext, header: string | undefined): string | undefined {
  const bearer = readBearerToken(header);
  if (!bearer.ok) return bearer.message;
  return context.tokens.isValid(bearer.token) ? undefined : 'Invalid or expired access token';
}

/** GET /v1/company/search: one page of companies matching q in one jurisdiction, and the total of matches. */
export async function handleSearchRequest(context: ServiceContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  context.counters.recordSearchRequest(rawQueryString(req.url ?? ''));
  context.counters.trackSearchInFlight(res);
  if (await answeredBeforeHandling(context, req, res, 'search')) return;
  const problem = authorisationProblem(context, req.headers.authorization);
  if (problem !== undefined) {
    sendError(res, 401, problem, { 'www-authenticate': 'Bearer' });
    return;
  }
  const check = parseSearchParameters(url.searchParams);
  if (!check.ok) {
    sendError(res, 400, check.message);
    return;
  }
  const page = context.searchIndex().search(check.request);
  const { mapResults } = context.knobs;
  const corrected = context.knobs.corrected(page.results);
  // The mapper gets copies: the shared data set is frozen and must stay intact for other tests.
  const results = mapResults === undefined ? corrected : mapResults(structuredClone(corrected));
  context.counters.searchesAnswered += 1;
  sendJson(res, 200, { results, total: page.total });
}
