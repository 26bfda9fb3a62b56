import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fault } from './faults.js';
import { sendJson, sendText } from './http-responses.js';

export type Endpoint = 'token' | 'search';

const TRUNCATED_BODIES: Readonly<Record<Endpoint, string>> = {
  token: '{"access_token": "eyJhbGciOi',
  search: '{"results": [{"name": "Acme Widg',
};

const BODIES_OF_WRONG_SHAPE: Readonly<Record<Endpoint, unknown>> = {
  token: { token_type: 'Bearer', expires_in: 3600 },
  search: { companies: [], total: 0 },
};

/** Answers the request with the injected fault instead of normally. */
export function answerWithFault(req: IncomingMessage, res: ServerResponse, fault: Fault, endpoint: Endpoint): void {
  if ('status' in fault) {
    const body = fault.body ?? JSON.stringify({ message: STATUS_CODES[fault.status] ?? 'Injected fault' });
    sendText(res, fault.status, body, fault.headers);
    return;
  }
  switch (fault.kind) {
    case 'malformed-json':
      sendText(res, 200, TRUNCATED_BODIES[endpoint]);
      return;
    case 'wrong-shape':
      sendJson(res, 200, BODIES_OF_WRONG_SHAPE[endpoint]);
      return;
    case 'drop-connection':
      req.socket.destroy();
      return;
    case 'hang':
      // Left unanswered on purpose; closing the service destroys the socket.
      return;
  }
}
