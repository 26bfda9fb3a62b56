import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import { ResponseTooLargeError } from '../../errors/request-errors.js';
import type { GatewayContext } from '../../schema/context.js';
import { jsonBytesWithin } from './answer-bytes.js';

export interface MaxResponseBytesOptions {
  /** Most bytes of JSON the answers to one request may hold: its operation's, or a batch's together. */
  maxBytes: number;
}

/**
 * Refuses an answer that would be more than `maxBytes` bytes of JSON, as soon
 * as its operation has run and before anything is serialized: one long
 * upstream string under every alias of a query made an answer many times the
 * upstream's whole body, and it is writing that out that costs, not executing
 * it (the result holds the string by reference wherever it is selected, one
 * copy in memory). The bytes are counted as JSON would write
 * them, the partial errors and warnings the resolvers noted included, and the
 * count stops at the limit: a refusal costs what `maxBytes` of answer costs,
 * however large the answer would have been. A request's operations share one
 * count (a batch's answers go out together).
 *
 * It runs before the notes join the answer (use-response-notes.ts): a refused
 * operation's notes are dropped with its data, and the refusal, noted like a
 * partial error, keeps the answer out of the response cache.
 *
 * Validation errors are held to the same count: they quote the document
 * (names, operation names), and graphql-js reports up to 100 of them, so a
 * fragment using an undefined variable with a long name, spread by 100
 * operations, answered a 9 KB request with 700 KB of errors whatever the limit.
 * Such a list is replaced by the refusal alone.
 */
export function useMaxResponseBytes({ maxBytes }: MaxResponseBytesOptions): Plugin<GatewayContext> {
  if (!Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError(`maxBytes must be a whole number of at least 1, got ${maxBytes}`);
  }
  /** Bytes already answered per request (Yoga's Request, one per HTTP request), for a batch's later operations. */
  const answered = new WeakMap<object, number>();
  return {
    onValidate({ context }) {
      return ({ result, setResult }) => {
        if (result.length === 0) return;
        const request = (context as { request?: object }).request;
        const before = (request && answered.get(request)) ?? 0;
        const left = maxBytes - before;
        const bytes = jsonBytesWithin(result, left);
        if (bytes <= left) {
          if (request) answered.set(request, before + bytes);
          return;
        }
        setResult([new ResponseTooLargeError(maxBytes)]);
      };
    },
    onExecute() {
      return {
        onExecuteDone({ args, result, setResult }) {
          if (isAsyncIterable(result)) return;
          const context = args.contextValue as GatewayContext & { request?: object };
          const before = (context.request && answered.get(context.request)) ?? 0;
          const left = maxBytes - before;
          const bytes = jsonBytesWithin(asAnswered(result, context), left);
          if (bytes <= left) {
            if (context.request) answered.set(context.request, before + bytes);
            return;
          }
          context.notes.refuse(new ResponseTooLargeError(maxBytes));
          setResult({});
        },
      };
    },
  };
}

/** The result as it will be answered, once the notes have joined it (as use-response-notes.ts adds them). */
function asAnswered(result: ExecutionResult, { notes }: GatewayContext): ExecutionResult {
  if (notes.errors.length === 0 && notes.warnings.length === 0) return result;
  return {
    ...result,
    errors: [...(result.errors ?? []), ...notes.errors],
    extensions: { ...result.extensions, warnings: notes.warnings },
  };
}
