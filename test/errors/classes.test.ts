import { GraphQLError, Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AuthUnavailableError, RateLimitedError, UnauthenticatedError } from '../../src/errors/access-refusals.js';
import {
  AdminPathNotFoundError,
  AdminUnauthenticatedError,
  PurgeTargetAmbiguousError,
  PurgeTargetInvalidError,
  PurgeTargetMissingError,
} from '../../src/errors/admin-refusals.js';
import { ClientError } from '../../src/errors/client-error.js';
import { ERROR_CODES, type ErrorCode } from '../../src/errors/codes.js';
import { BadArgumentValueError, BadScalarValueError, BadUserInputError } from '../../src/errors/field-errors.js';
import {
  BatchTooLargeError,
  CorsOriginNotAllowedError,
  CrossSiteRequestRefusedError,
  HeadersTooLargeError,
  MalformedHttpError,
  NotAcceptableError,
  AcceptTooLongError,
  NotFoundError,
  PayloadTooLargeError,
  RequestTimeoutError,
  TooManyConnectionsError,
  UnsupportedMediaTypeError,
} from '../../src/errors/http-refusals.js';
import { InternalServerError } from '../../src/errors/internal-error.js';
import { Refusal } from '../../src/errors/refusal.js';
import {
  BadRequestError,
  BadVariableValueError,
  DocumentTooLargeError,
  IntrospectionDisabledError,
  OperationTooComplexError,
  SearchBudgetExceededError,
  TrustedDocumentNotFoundError,
  TrustedDocumentRequiredError,
} from '../../src/errors/request-errors.js';
import {
  UpstreamAuthError,
  UpstreamBadResponseError,
  UpstreamBudgetSpentError,
  UpstreamCircuitOpenError,
  UpstreamRateLimitedError,
  UpstreamRateLimitHoldError,
  UpstreamRejectedQueryError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../../src/errors/upstream-errors.js';
import { InvalidTokenError } from '../../src/gateway/access/jwt.js';
import { TokenKeysUnavailableError } from '../../src/gateway/access/jwks-fetch.js';
import { ConfigError } from '../../src/gateway/config/gateway-config.js';
import { ClientGoneError } from '../../src/shared/request-body.js';

const variableDefinition = parse('query ($q: String!) { __typename }').definitions[0]!;
const node = variableDefinition.kind === Kind.OPERATION_DEFINITION ? variableDefinition.variableDefinitions![0]! : variableDefinition;

const CLIENT_ERRORS: Error[] = [
  new UnauthenticatedError('An API key is required', 'ApiKey realm="x"'),
  new AuthUnavailableError('detail'),
  new RateLimitedError(3),
  new NotFoundError('/graphql'),
  new CrossSiteRequestRefusedError('Cross-site requests are refused'),
  new CorsOriginNotAllowedError('https://evil.example'),
  new UnsupportedMediaTypeError('text/plain', 'application/json'),
  new NotAcceptableError('text/plain', ['application/json']),
  new AcceptTooLongError(600, 512, 'application/json'),
  new PayloadTooLargeError(10),
  new BatchTooLargeError(3),
  new TooManyConnectionsError('MAX_CONNECTIONS'),
  new TooManyConnectionsError('MAX_CONNECTIONS_PER_ADDRESS'),
  new RequestTimeoutError(),
  new HeadersTooLargeError(),
  new MalformedHttpError('HPE_INVALID_METHOD'),
  new InternalServerError(),
  new BadRequestError('The request holds no GraphQL document: send one in "query", such as {"query": "{ __typename }"}'),
  new DocumentTooLargeError(20, 10),
  new OperationTooComplexError(30, 20),
  new SearchBudgetExceededError(6, 5),
  new IntrospectionDisabledError('__schema', node),
  new TrustedDocumentRequiredError('documentId'),
  new TrustedDocumentNotFoundError('documentId'),
  new BadVariableValueError(new GraphQLError('Variable "$q" of required type "String!" was not provided.', { nodes: node }), 'q'),
  new BadUserInputError('q', 'must not be empty'),
  new BadArgumentValueError(new GraphQLError('Argument "if" of non-null type "Boolean!" must not be null.'), 'if', 'v'),
  new BadScalarValueError('CountryCode must be a string such as "GB"'),
  new UpstreamAuthError('detail'),
  new UpstreamRateLimitedError('detail'),
  new UpstreamRateLimitHoldError('detail', 1_000),
  new UpstreamBudgetSpentError('detail', 1_000),
  new UpstreamUnavailableError('detail'),
  new UpstreamCircuitOpenError('detail', 1_000),
  new UpstreamTimeoutError('detail'),
  new UpstreamBadResponseError('detail'),
  new UpstreamRejectedQueryError('detail'),
  new AdminUnauthenticatedError(false),
  new AdminPathNotFoundError('/purge'),
  new PurgeTargetMissingError('names nothing'),
  new PurgeTargetAmbiguousError(['all', 'jurisdiction']),
  new PurgeTargetInvalidError('not JSON'),
];

/** Failures inside the gateway that no client is told of as they are. */
const INTERNAL_ERRORS: Error[] = [
  new ClientGoneError('closed'),
  new InvalidTokenError('The bearer token has expired'),
  new TokenKeysUnavailableError('fetching failed'),
  new ConfigError(['PORT must be a whole number']),
];

function codeOf(error: Error): ErrorCode {
  return (error instanceof ClientError ? error.code : (error as GraphQLError).extensions.code) as ErrorCode;
}

describe('error classes', () => {
  it.each([...CLIENT_ERRORS, ...INTERNAL_ERRORS].map((error) => [error.constructor.name, error] as const))(
    '%s is named after its class, in its stack too',
    (name, error) => {
      expect(error.name).toBe(name);
      expect(error.stack?.startsWith(`${name}: `)).toBe(true);
    },
  );

  it.each(CLIENT_ERRORS.map((error) => [error.constructor.name, error] as const))(
    '%s carries a code of the catalogue, with one of its statuses',
    (_, error) => {
      const entry = ERROR_CODES[codeOf(error)];
      expect(entry).toBeDefined();
      // Upstream and field errors ride in an answer whose status GraphQL decides.
      const status = error instanceof Refusal ? error.status : (error as GraphQLError).extensions?.http?.status;
      if (status !== undefined) expect(entry.statuses).toContain(status);
    },
  );
});
