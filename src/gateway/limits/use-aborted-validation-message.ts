import { createGraphQLError, type Plugin } from 'graphql-yoga';

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
        setResult(
          result.map((error) =>
            error.message === VALIDATION_ABORTED
              ? createGraphQLError(
                  'Validation stopped: this operation writes the same fields, or spreads the same fragments, so many times that checking them would take too long. Write each field once per selection set, and spread fewer fragments that select the same fields',
                  { extensions: { code: 'OPERATION_TOO_COMPLEX' } },
                )
              : error,
          ),
        );
      };
    },
  };
}
