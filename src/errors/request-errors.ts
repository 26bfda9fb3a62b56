import type { ASTNode, GraphQLError } from 'graphql';
import { CodedGraphQLError, RequestError } from './coded-graphql-error.js';
import { QUOTED_VALUE_LIMIT } from './excerpt.js';

/** A request that is not one Yoga can run: `message` says what is wrong with it and what to send. */
export class BadRequestError extends RequestError {
  constructor(message: string) {
    super('BAD_REQUEST', message);
  }
}

export class DocumentTooLargeError extends RequestError {
  constructor(length: number, maxLength: number) {
    super('DOCUMENT_TOO_LARGE', `The GraphQL document is ${length} characters long; at most ${maxLength} are accepted. Send a shorter one`);
  }
}

/** `selections` is Number.MAX_SAFE_INTEGER when counting stopped there. */
export class OperationTooComplexError extends RequestError {
  constructor(selections: number, maxSelections: number) {
    super(
      'OPERATION_TOO_COMPLEX',
      `This document holds ${selections === Number.MAX_SAFE_INTEGER ? 'more than ' : ''}${selections} selections once its fragments are expanded where they are spread; at most ${maxSelections} are allowed. Spread each fragment fewer times, or send a smaller operation`,
    );
  }
}

/** An answer that could hold more than MAX_RESULT_FIELDS fields, each counted once per entry of the lists above it. */
export class ResultTooLargeError extends RequestError {
  constructor(resultFields: number, maxResultFields: number) {
    super(
      'OPERATION_TOO_COMPLEX',
      `The answer to this operation could hold ${resultFields} fields; at most ${maxResultFields} are allowed (MAX_RESULT_FIELDS). Each field counts once per entry of the lists above it (a page of searchCompanies holds up to its pageSize): select fewer fields, use fewer aliases, or ask for smaller pages`,
      { extensions: { resultFields, maxResultFields } },
    );
  }
}

/** An answer that would be more than MAX_RESPONSE_BYTES bytes of JSON, refused once its operation has run. */
export class ResponseTooLargeError extends RequestError {
  constructor(maxResponseBytes: number) {
    super(
      'RESPONSE_TOO_LARGE',
      `The answer to this request would be more than ${maxResponseBytes} bytes; at most that many are sent (MAX_RESPONSE_BYTES). Select fewer fields, use fewer aliases, or ask for smaller pages`,
      { extensions: { maxResponseBytes } },
    );
  }
}

/** graphql-js gave up validating: its message, "Validation aborted.", says neither what was too much nor what to do. */
export class ValidationAbortedError extends RequestError {
  constructor() {
    super(
      'OPERATION_TOO_COMPLEX',
      'Validation stopped: this operation writes the same fields, or spreads the same fragments, so many times that checking them would take too long. Write each field once per selection set, and spread fewer fragments that select the same fields',
    );
  }
}

export class SearchBudgetExceededError extends RequestError {
  constructor(searches: number, maxSearches: number) {
    super(
      'UPSTREAM_SEARCH_BUDGET_EXCEEDED',
      `This operation would make ${searches} distinct upstream searches; at most ${maxSearches} are allowed per operation (each searchCompanies, company or node field with different arguments counts). Split it into several operations`,
    );
  }
}

/** A field of an introspection type asked for while introspection is off; graphql-js's rule words it the same way. */
export class IntrospectionDisabledError extends RequestError {
  constructor(field: string, node: ASTNode) {
    super('GRAPHQL_VALIDATION_FAILED', `GraphQL introspection has been disabled, but the requested query contained the field "${field}".`, {
      nodes: node,
    });
  }
}

/** `documentIdParam`: the request parameter that carries a trusted document's id. */
export class TrustedDocumentRequiredError extends RequestError {
  constructor(documentIdParam: string) {
    super(
      'TRUSTED_DOCUMENT_REQUIRED',
      `Only trusted documents are executed here: send "${documentIdParam}" with the id of an operation from the manifest instead of "query"`,
    );
  }
}

export class TrustedDocumentNotFoundError extends RequestError {
  constructor(documentIdParam: string) {
    super(
      'TRUSTED_DOCUMENT_NOT_FOUND',
      `"${documentIdParam}" does not name a trusted document; send the id of an operation from the manifest`,
    );
  }
}

/** A JSON string literal, as graphql-js quotes a string value in its messages. */
const QUOTED_STRING = /"(?:[^"\\]|\\.)*"/g;

/** `message` with each quoted string cut to QUOTED_VALUE_LIMIT characters, so that it cannot echo a whole request body back. */
function withShortQuotes(message: string): string {
  return message.replace(QUOTED_STRING, (quoted) =>
    quoted.length - 2 > QUOTED_VALUE_LIMIT ? `${quoted.slice(0, QUOTED_VALUE_LIMIT + 1)}…"` : quoted,
  );
}

/**
 * A variable value that cannot be coerced to its type, which graphql-js
 * reports without a code: the same error, coded like any other bad input and
 * naming its variable in `extensions.variable` (without the `$`), as a bad
 * argument names its argument; it is answered 400 (graphql/use-variable-error-codes.ts).
 * graphql-js quotes the value whole, twice (a 100 KB string made a 200 KB
 * answer); the message quotes at most QUOTED_VALUE_LIMIT characters of it.
 */
export class BadVariableValueError extends CodedGraphQLError {
  constructor(error: GraphQLError, variable: string) {
    super('BAD_USER_INPUT', withShortQuotes(error.message), {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      originalError: error.originalError,
      extensions: { ...error.extensions, variable },
    });
  }
}
