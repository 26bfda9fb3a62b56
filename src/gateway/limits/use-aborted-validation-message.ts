import type { Plugin } from 'graphql-yoga';
import { ValidationAbortedError } from '../../errors/request-errors.js';

/** graphql-js's whole message when a validation rule gives up on a document that would cost it too much work. */
export const VALIDATION_ABORTED = 'Validation aborted.';

/**
 * graphql-js gives up validating a document that would cost it too much work
 * (its check that same-named fields can be merged, or its walk of fragments:
 * e.g. 980 `id` in one selection set), and says only "Validation aborted.". This
 * answers it as OPERATION_TOO_COMPLEX, saying what was too much and what to
 * do instead.
 */
export function useAbortedValidationMessage(): Plugin {
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (!result.some((error) => error.message === VALIDATION_ABORTED)) return;
        setResult(result.map((error) => (error.message === VALIDATION_ABORTED ? new ValidationAbortedError() : error)));
      };
    },
  };
}
