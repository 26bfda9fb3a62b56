import { Kind, type GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { UPSTREAM_MAX_PAGE_SIZE } from '../upstream/search-call.js';
import { builder } from './builder.js';
import { countryCodeProblem, isCountryCode } from './country-code.js';
import { BadUserInputError } from '../errors/field-errors.js';

export const DEFAULT_PAGE_SIZE = 20;

const nonBlankRule = z.string().refine((text) => text.trim() !== '', 'must not be empty or blank');

const pageSizeRule = z
  .number()
  .int()
  .min(1, `must be from 1 to ${UPSTREAM_MAX_PAGE_SIZE}`)
  .max(UPSTREAM_MAX_PAGE_SIZE, `must be from 1 to ${UPSTREAM_MAX_PAGE_SIZE}`);

export const jurisdictionArgs = builder.args((t) => ({
  jurisdiction: t.field({
    type: 'CountryCode',
    required: true,
    description:
      'ISO 3166-1 alpha-2 code of the register to search, e.g. `GB` or `IE`; lower case is accepted. `UK`, a three-letter code or a country name is refused with the code meant.',
    validate: z.string().refine(isCountryCode, { error: (issue) => countryCodeProblem(String(issue.input)) }),
  }),
}));

export const companyNumberArgs = builder.args((t) => ({
  companyNumber: t.string({
    required: true,
    description: 'The company number exactly as registered, e.g. `01234567` or `SC123456`; case is ignored.',
    validate: nonBlankRule,
  }),
}));

export const searchArgs = builder.args((t) => ({
  q: t.string({
    required: true,
    description:
      'Company name or company number to search for. Surrounding whitespace is ignored and inner runs of whitespace count as one space.',
    validate: nonBlankRule,
  }),
  ...jurisdictionArgs,
  pageSize: t.int({
    defaultValue: DEFAULT_PAGE_SIZE,
    description: `How many results to return, from 1 to ${UPSTREAM_MAX_PAGE_SIZE}.`,
    validate: pageSizeRule,
  }),
  first: t.int({
    description: 'The Relay name for `pageSize`; when both are given they must be equal.',
    validate: pageSizeRule,
  }),
  after: t.string({
    description: 'Cursor of the result to continue after, from `endCursor` or an edge of this same search.',
  }),
  last: t.int({
    description: `Pages backward (Relay's \`last\`): how many results to return, from 1 to ${UPSTREAM_MAX_PAGE_SIZE}, counting back from \`before\`, or from the end of the results that can be paged through. Not with \`first\` or \`pageSize\`.`,
    validate: pageSizeRule,
  }),
  before: t.string({
    description: 'Cursor of the result to page back from, from `startCursor` or an edge of this same search.',
  }),
}));

export interface PageSize {
  limit: number;
  /** Counted back from the end of the range (`last`), not forward from its start. */
  fromEnd: boolean;
}

/**
 * How many results a page takes, and from which end. `first` and `pageSize`
 * name one thing: `first` wins, unless the client also wrote a different
 * `pageSize`. `last` pages the other way, so it is taken alone.
 */
export function resolvePageSize(
  args: { pageSize?: number | null; first?: number | null; last?: number | null },
  info: GraphQLResolveInfo,
): PageSize {
  const pageSize = args.pageSize ?? DEFAULT_PAGE_SIZE;
  if (args.last !== null && args.last !== undefined) {
    const forward = args.first !== null && args.first !== undefined ? 'first' : isArgumentGiven(info, 'pageSize') ? 'pageSize' : undefined;
    if (forward !== undefined) {
      throw new BadUserInputError(
        'last',
        `pages backward and ${forward} forward; give one of them: first (or pageSize) with after, or last with before`,
      );
    }
    return { limit: args.last, fromEnd: true };
  }
  if (args.first === null || args.first === undefined) return { limit: pageSize, fromEnd: false };
  if (isArgumentGiven(info, 'pageSize') && pageSize !== args.first) {
    throw new BadUserInputError('first', `is the Relay name for pageSize; both were given and differ (${args.first} and ${pageSize})`);
  }
  return { limit: args.first, fromEnd: false };
}

/** Upstream queries are bounded in length; `argument` names where the text came from. */
export function checkQueryLength(text: string, maxQueryLength: number, argument: string): void {
  if (text.length > maxQueryLength) {
    throw new BadUserInputError(argument, `must be at most ${maxQueryLength} characters long, got ${text.length}`);
  }
}

/** Whether the client gave the argument a value, as opposed to leaving it to the schema's default. */
function isArgumentGiven(info: GraphQLResolveInfo, name: string): boolean {
  const argument = info.fieldNodes[0]?.arguments?.find((node) => node.name.value === name);
  if (!argument || argument.value.kind === Kind.NULL) return false;
  if (argument.value.kind !== Kind.VARIABLE) return true;
  return (info.variableValues[argument.value.name.value] ?? null) !== null;
}
