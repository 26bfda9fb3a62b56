import { ClientError } from './client-error.js';
import { ERROR_CODES } from './codes.js';

export interface RefusalOptions extends ErrorOptions {
  /** Where the code comes with more than one status, the one for this refusal. */
  status?: number;
  headers?: Record<string, string>;
  /** Stop reading the request: its body is not wanted and the connection is closed after the answer. */
  closeConnection?: boolean;
}

/**
 * A request refused in front of GraphQL, answered with its status and a
 * GraphQL-shaped body, `{"errors":[{"message":…,"extensions":{"code":…}}]}`.
 */
export abstract class Refusal extends ClientError {
  readonly headers: Readonly<Record<string, string>>;
  readonly closeConnection: boolean;
  readonly #status: number | undefined;

  constructor(message: string, { status, headers = {}, closeConnection = false, ...options }: RefusalOptions = {}) {
    super(message, options);
    this.#status = status;
    this.headers = headers;
    this.closeConnection = closeConnection;
  }

  /** The catalogue's status for the code, unless the refusal named another of the code's statuses. */
  get status(): number {
    return this.#status ?? ERROR_CODES[this.code].statuses[0];
  }
}
