import { type HttpAnswer, send } from './http.js';

/** The admin token the tests' gateways are given, long enough for ADMIN_TOKEN. */
export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';

/** The admin settings of a gateway whose admin server listens on a free port. */
export const ADMIN = { adminPort: 0, adminToken: ADMIN_TOKEN };

/** POSTs a purge naming `target` to the admin server at `adminUrl`, with the tests' token unless `headers` say otherwise. */
export function purge(adminUrl: string, target: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return send(adminUrl, {
    method: 'POST',
    path: '/purge',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
    body: typeof target === 'string' ? target : JSON.stringify(target),
  });
}
