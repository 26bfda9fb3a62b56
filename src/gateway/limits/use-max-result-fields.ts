import { getOperationAST, getVariableValues, Kind, type FieldNode, type GraphQLSchema, type ValueNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ResultTooLargeError } from '../../errors/request-errors.js';
import { DEFAULT_PAGE_SIZE } from '../../schema/search-arguments.js';
import { UPSTREAM_MAX_PAGE_SIZE } from '../../upstream/search-call.js';
import { MAX_PREVIOUS_NAMES } from '../../upstream/search-response.js';
import { perOperation } from './per-operation.js';
import { resultSize, type ListBound } from './result-size.js';

export interface MaxResultFieldsOptions {
  maxFields: number;
}

/** The connection field whose page size bounds its `edges` and `nodes`. */
const CONNECTION_FIELD = { type: 'Query', field: 'searchCompanies' };

/** Lists in a connection hold at most its page; a company's previous names at most what the upstream reading keeps. */
const listBound: ListBound = (typeName, fieldName, pageSize) =>
  typeName === 'Company' && fieldName === 'previousNames' ? MAX_PREVIOUS_NAMES : (pageSize ?? UPSTREAM_MAX_PAGE_SIZE);

/**
 * Refuses, before any resolver runs, an operation whose answer could hold
 * more than `maxFields` fields (see resultSize): one upstream search's page
 * of 50 companies written out under every alias makes an answer far larger
 * than any client needs and holds a core while it is built, within every
 * other limit. The size with every variable page size at its largest is kept
 * per document; only an operation over the limit that way is sized again with
 * its variables, per request.
 */
export function useMaxResultFields({ maxFields }: MaxResultFieldsOptions): Plugin {
  if (!Number.isInteger(maxFields) || maxFields < 1) {
    throw new RangeError(`maxFields must be a whole number of at least 1, got ${maxFields}`);
  }
  let largest: ReturnType<typeof perOperation<number>> | undefined;
  return {
    onSchemaChange({ schema }) {
      largest = perOperation((document, operationName) => sizeWith(schema, document, operationName, undefined) ?? 0);
    },
    onExecute({ args }) {
      if ((largest?.(args.document, args.operationName) ?? Number.POSITIVE_INFINITY) <= maxFields) return;
      const size = sizeWith(args.schema, args.document, args.operationName, args.variableValues ?? {});
      if (size === undefined) return;
      if (size <= maxFields) return;
      throw new ResultTooLargeError(size, maxFields);
    },
  };
}

/**
 * The result size with the request's `rawVariables` applied (their defaults too); without them (undefined), each
 * page size a variable sets counts at its largest. Undefined when the variables cannot be coerced: execution refuses
 * the operation anyway.
 */
function sizeWith(
  schema: GraphQLSchema,
  document: Parameters<typeof resultSize>[1],
  operationName: string | null | undefined,
  rawVariables: Readonly<Record<string, unknown>> | undefined,
): number | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  let variables: Record<string, unknown> | undefined;
  if (rawVariables !== undefined) {
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables);
    if (coerced.errors) return undefined;
    variables = coerced.coerced;
  }
  return resultSize(schema, document, operation, listBound, (field, typeName) =>
    typeName === CONNECTION_FIELD.type && field.name.value === CONNECTION_FIELD.field ? pageSize(field, variables) : undefined,
  );
}

const PAGE_SIZE_ARGUMENTS = ['first', 'last', 'pageSize'];

/**
 * The largest of `first`, `last` and `pageSize` given, else the default, held between 0 and the largest page: a value
 * outside, or two of them together, fails the field before it answers.
 */
function pageSize(field: FieldNode, variables: Readonly<Record<string, unknown>> | undefined): number {
  const given = (name: string) => {
    const value = field.arguments?.find((argument) => argument.name.value === name)?.value;
    return value === undefined ? undefined : intValue(value, variables);
  };
  const sizes = PAGE_SIZE_ARGUMENTS.map(given).filter((size) => size !== undefined);
  const size = sizes.length > 0 ? Math.max(...sizes) : DEFAULT_PAGE_SIZE;
  return Math.max(0, Math.min(UPSTREAM_MAX_PAGE_SIZE, size));
}

/** An Int argument's value; a variable unknown until the request comes (`variables` undefined) counts as the largest page. */
function intValue(value: ValueNode, variables: Readonly<Record<string, unknown>> | undefined): number | undefined {
  if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
  if (value.kind !== Kind.VARIABLE) return undefined;
  if (variables === undefined) return UPSTREAM_MAX_PAGE_SIZE;
  const given = variables[value.name.value];
  return typeof given === 'number' ? given : undefined;
}
