import { excerpt } from './excerpt.js';
import { Refusal } from './refusal.js';

/** Seconds a client over MAX_CONNECTIONS is asked to wait. */
export const TOO_MANY_CONNECTIONS_RETRY_AFTER_SECONDS = 1;

export class NotFoundError extends Refusal {
  readonly code = 'NOT_FOUND';

  constructor(graphqlPath: string) {
    super(`Nothing here; GraphQL is served at ${graphqlPath}`);
  }
}

/**
 * GraphiQL asked for by a browser where it is not served: turned off (GRAPHIQL=false, the default in production), or
 * where only trusted documents run, since it sends whole queries and none would run.
 */
export class GraphiqlUnavailableError extends Refusal {
  readonly code = 'GRAPHIQL_UNAVAILABLE';

  constructor(why: 'off' | 'trusted-documents-only', production: boolean) {
    super(
      why === 'off'
        ? `GraphiQL is off here (GRAPHIQL=false${production ? ', the default with NODE_ENV=production' : ''}); its operators can turn it on with GRAPHIQL=true. GraphQL requests are answered at this address with Accept: application/json`
        : 'GraphiQL is off here: this gateway runs only trusted documents (ALLOW_ARBITRARY_OPERATIONS=false), and GraphiQL sends whole queries; send the documentId of a trusted document from a client built with the manifest',
    );
  }
}

/** A method other than GET or HEAD on a static file. */
export class MethodNotAllowedError extends Refusal {
  readonly code = 'BAD_REQUEST';

  constructor(method: string, allowed: readonly string[]) {
    super(`${method} is not allowed here; use ${allowed.join(' or ')}`, { status: 405, headers: { allow: allowed.join(', ') } });
  }
}

/** A browser request that looks forged from another site; `reason` says why and what would be accepted. */
export class CrossSiteRequestRefusedError extends Refusal {
  readonly code = 'CROSS_SITE_REQUEST_REFUSED';
}

/** A CORS preflight from an origin not allowed. */
export class CorsOriginNotAllowedError extends Refusal {
  readonly code = 'CORS_ORIGIN_NOT_ALLOWED';

  constructor(origin: string) {
    super(
      `Origin ${excerpt(origin)} is not allowed: it is not in CORS_ALLOWED_ORIGINS; call from an allowed origin, or ask the gateway's operators to add it`,
    );
  }
}

/** A POST body the gateway does not read; `expected` is the type to send. */
export class UnsupportedMediaTypeError extends Refusal {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';

  /** `hint`: how to send it so, where the way the request went wrong is known. */
  constructor(contentType: string | undefined, expected: string, hint?: string) {
    const sent = contentType ? `, not ${excerpt(contentType)}` : '; the Content-Type header is missing';
    super(`Send the request as ${expected}${sent}${hint === undefined ? '' : `: ${hint}`}`);
  }
}

/** An Accept header that allows none of `answerTypes`, the first of which is the one to ask for. */
export class NotAcceptableError extends Refusal {
  readonly code = 'NOT_ACCEPTABLE';

  constructor(accept: string | undefined, answerTypes: readonly string[]) {
    super(
      `Answers are ${answerTypes.join(', ')} in UTF-8; the Accept header (${accept === undefined ? accept : excerpt(accept)}) allows none of them; send Accept: ${answerTypes[0]}`,
    );
  }
}

/** An Accept header too long to be read; it is not echoed. */
export class AcceptTooLongError extends Refusal {
  readonly code = 'NOT_ACCEPTABLE';

  constructor(length: number, maxLength: number, answerType: string) {
    super(
      `The Accept header is ${length} characters long; at most ${maxLength} are read. Send a shorter one, such as Accept: ${answerType}`,
    );
  }
}

export class PayloadTooLargeError extends Refusal {
  readonly code = 'PAYLOAD_TOO_LARGE';

  constructor(maxBodyBytes: number) {
    super(`The request body is larger than ${maxBodyBytes} bytes; send a smaller one`, { closeConnection: true });
  }
}

/** A batch of more operations than the rate limit lets a client make at once. */
export class BatchTooLargeError extends Refusal {
  readonly code = 'PAYLOAD_TOO_LARGE';

  constructor(burst: number) {
    super(
      `A batch may hold at most ${burst} operations here: each counts against the rate limit, and RATE_LIMIT_BURST is ${burst}; send fewer operations per batch`,
    );
  }
}

export class TooManyConnectionsError extends Refusal {
  readonly code = 'TOO_MANY_CONNECTIONS';

  /** `limit`: the setting the connection is over, the server's or one address's. */
  constructor(limit: 'MAX_CONNECTIONS' | 'MAX_CONNECTIONS_PER_ADDRESS') {
    super(
      limit === 'MAX_CONNECTIONS'
        ? `The server has as many connections open as it serves (MAX_CONNECTIONS); try again in ${TOO_MANY_CONNECTIONS_RETRY_AFTER_SECONDS} s`
        : `Your address has as many connections open as one address is served (MAX_CONNECTIONS_PER_ADDRESS); send this request on one of them, or try again in ${TOO_MANY_CONNECTIONS_RETRY_AFTER_SECONDS} s`,
      { headers: { 'retry-after': String(TOO_MANY_CONNECTIONS_RETRY_AFTER_SECONDS) }, closeConnection: true },
    );
  }
}

/** Headers or the whole request not in within HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS. */
export class RequestTimeoutError extends Refusal {
  readonly code = 'REQUEST_TIMEOUT';

  constructor() {
    super('The request was not received in time; send it again, without pauses', { closeConnection: true });
  }
}

/** Request headers over Node's limit (16 KiB). */
export class HeadersTooLargeError extends Refusal {
  readonly code = 'BAD_REQUEST';

  constructor() {
    super('The request headers are larger than this server accepts; send fewer or shorter headers', { status: 431, closeConnection: true });
  }
}

/** A Host header that is no host and port (RFC 9112 asks for 400): the URL Yoga builds from it would not parse. */
export class InvalidHostError extends Refusal {
  readonly code = 'BAD_REQUEST';

  constructor(missing = false) {
    super(
      missing
        ? 'The Host header is missing, which HTTP/1.1 requires; send the host you connect to, e.g. Host: gateway.example:4000'
        : 'The Host header is not a host name or address with an optional port; send the host you connect to, e.g. Host: gateway.example:4000',
      {
        closeConnection: true,
      },
    );
  }
}

/** An `Expect` header asking for something other than `100 Continue`, which the gateway never does. */
export class ExpectationFailedError extends Refusal {
  readonly code = 'BAD_REQUEST';

  constructor(expect: string) {
    super(`The Expect header asks for ${excerpt(expect)}, which the gateway does not do; send no Expect header, or Expect: 100-continue`, {
      status: 417,
      closeConnection: true,
    });
  }
}

/** Bytes Node's HTTP parser could not read as a request; `parserCode` is its reason, e.g. HPE_INVALID_METHOD. */
export class MalformedHttpError extends Refusal {
  readonly code = 'BAD_REQUEST';

  constructor(parserCode: string | undefined) {
    super(`The request is not valid HTTP/1.1 (${parserCode ?? 'unparsable'}); send a well-formed HTTP/1.1 request`, {
      closeConnection: true,
    });
  }
}
