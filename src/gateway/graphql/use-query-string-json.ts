import type { Plugin } from 'graphql-yoga';
import { BadRequestError } from '../../errors/request-errors.js';

const JSON_PARAMETERS = ['variables', 'extensions'];
const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/**
 * Checks that the `variables` and `extensions` of a GET request's query
 * string, or of a form-encoded POST body, are JSON before Yoga reads them:
 * Yoga parses them unguarded, so bad JSON there ends as a 500 "Unexpected
 * error." instead of a 400 saying what is wrong. Yoga itself refuses JSON
 * that is not an object, as it does in a JSON body.
 */
export function useQueryStringJson(): Plugin {
  return {
    onRequestParse({ request, url }) {
      if (request.method === 'GET') return checkJson(url.searchParams, 'query parameter');
      if (request.method === 'POST' && isForm(request.headers.get('content-type'))) {
        // The clone leaves the body for Yoga to read.
        return request
          .clone()
          .text()
          .then((body) => checkJson(new URLSearchParams(body), 'form field'));
      }
      return undefined;
    },
  };
}

function checkJson(parameters: URLSearchParams, where: string): void {
  for (const name of JSON_PARAMETERS) {
    const raw = parameters.get(name);
    if (raw === null || raw === '') continue;
    try {
      JSON.parse(raw);
    } catch {
      throw new BadRequestError(`The "${name}" ${where} must be a JSON object, and is not JSON`);
    }
  }
}

/** As Yoga tells a form-encoded body: the first of the listed types, parameters aside. */
function isForm(contentType: string | null): boolean {
  const first = contentType?.split(',', 1)[0];
  return first === FORM_MEDIA_TYPE || first?.startsWith(`${FORM_MEDIA_TYPE};`) === true;
}
