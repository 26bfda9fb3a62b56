import { expect } from 'vitest';

/**
 * The whole body of an answer refused with one coded error, as the gateway writes it: `message`, then its
 * extensions (the request id, any id, and `code` with `more` fields), so that a test holds the whole answer.
 */
export function refusalBody(code: string, message: string, more: Record<string, unknown> = {}) {
  return { errors: [{ message, extensions: { requestId: expect.any(String), code, ...more } }] };
}
