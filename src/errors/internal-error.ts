import { Refusal } from './refusal.js';

/** What a client is told of a failure inside the gateway, in front of GraphQL or in it; the log has the rest. */
export const UNEXPECTED_ERROR_MESSAGE = "Unexpected error; try again later, and tell the gateway's operators if it keeps happening.";

/** Handling a request failed before GraphQL could answer it. */
export class InternalServerError extends Refusal {
  readonly code = 'INTERNAL_SERVER_ERROR';

  constructor() {
    super(UNEXPECTED_ERROR_MESSAGE, { closeConnection: true });
  }
}
