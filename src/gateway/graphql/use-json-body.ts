import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { BadRequestError } from '../../errors/request-errors.js';

/** The Content-Types Yoga reads as a JSON body, matched as Yoga matches them. */
const JSON_MEDIA_TYPES = ['application/json', 'application/graphql+json'];

const EXAMPLE = '{"query": "{ __typename }"}';

/**
 * V8 quotes part of the text it failed on where it names no position
 * (`Unexpected token 'x', "xxxxxxxxxx"... is not valid JSON`); that part is cut.
 */
const QUOTED_TEXT = /,? ?(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/;

/**
 * Reads JSON request bodies in place of Yoga's parser, whose answer to a body
 * that is not JSON quotes the whole body (up to MAX_BODY_BYTES of it, in
 * production too) in `extensions.originalError`. The answer here says what is
 * wrong and where, and repeats nothing of the body.
 *
 * Each operation must be a JSON object, too: Yoga hands every item of a
 * batch to the plugins as it is, and an item such as `null` failed in the
 * first plugin that read a parameter, as an internal error.
 */
export function useJsonBody(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method === 'POST' && isJsonContentType(request.headers.get('content-type'))) setRequestParser(parseJsonBody);
    },
    onParams({ params }) {
      const operation: unknown = params;
      if (!isObject(operation)) {
        throw new BadRequestError(`Each operation of a batch must be a JSON object such as ${EXAMPLE}, not ${describe(operation)}`);
      }
    },
  };
}

async function parseJsonBody(request: Request): Promise<GraphQLParams | GraphQLParams[]> {
  const text = await request.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`The request body is not valid JSON: ${syntaxProblem(error)}`);
  }
  if (body === null || typeof body !== 'object') {
    throw new BadRequestError(`The request body must be a JSON object such as ${EXAMPLE}, not ${describe(body)}`);
  }
  return body as GraphQLParams | GraphQLParams[];
}

/** An unexpected character that would not show in a message (a byte-order mark, a NUL), named by its code point instead. */
const UNEXPECTED_UNPRINTABLE = /^Unexpected token '([^\x21-\x7e])'/u;

function syntaxProblem(error: unknown): string {
  const problem = (error instanceof SyntaxError ? error.message.replace(QUOTED_TEXT, '') : '').replace(
    UNEXPECTED_UNPRINTABLE,
    (_, character: string) => `Unexpected character U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
  );
  // What V8 says of the bodies `undefined`, `NaN`, `Infinity` and `[object Object]` is their quote alone.
  return problem === '' ? 'its first characters are not JSON' : problem;
}

/** Whether Yoga reads a body of this Content-Type as JSON, and so this plugin parses it. */
function isJsonContentType(contentType: string | null | undefined): boolean {
  const first = contentType?.split(',', 1)[0];
  return JSON_MEDIA_TYPES.some((type) => first === type || first?.startsWith(`${type};`) === true);
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'boolean' ? String(value) : `a ${typeof value}`;
}
