import type { GraphQLResolveInfo } from 'graphql';
import type { InvalidFields } from '../upstream/company.js';
import type { GatewayContext } from './context.js';
import { InvalidUpstreamFieldError } from '../errors/field-errors.js';

interface ReadFromUpstream {
  invalid?: InvalidFields;
}

/** The partial error for `field` of `parent`, when the upstream sent what feeds it unreadable. */
export function reportInvalidField(
  parent: ReadFromUpstream,
  field: string,
  context: GatewayContext,
  info: GraphQLResolveInfo,
  consequence = 'it reads as null',
): void {
  const upstreamField = parent.invalid?.[field];
  if (upstreamField === undefined) return;
  context.notes.addError(
    new InvalidUpstreamFieldError(`The company lookup service sent an unreadable ${upstreamField}; ${consequence}`, upstreamField, info),
  );
}

/**
 * Resolvers for the fields of one type read from the upstream: each returns
 * the value as read and reports it when it was unreadable.
 */
export function upstreamFieldsOf<T extends ReadFromUpstream>() {
  return <K extends keyof T & string>(field: K) =>
    (parent: T, _args: object, context: GatewayContext, info: GraphQLResolveInfo): T[K] => {
      reportInvalidField(parent, field, context, info);
      return parent[field];
    };
}
