import type { ErrorCode } from './codes.js';

/**
 * A failure a client is told about, outside GraphQL's own error type: a
 * refusal in front of GraphQL, or an upstream failure a resolver throws. Its
 * `code` is one of the catalogue's; its message, which clients read, says
 * what was wrong and what to do.
 */
export abstract class ClientError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** GraphQL servers copy a thrown error's `extensions` into the error they report, so clients get the code. */
  get extensions(): { code: ErrorCode } {
    return { code: this.code };
  }
}
