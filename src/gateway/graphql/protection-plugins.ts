import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { GraphQLError, ValidationContext } from 'graphql';
import type { YogaServerOptions } from 'graphql-yoga';
import type { GraphqlSettings, RequestLimitSettings } from '../config/settings.js';
import { useJsonBody } from './use-json-body.js';
import { useAbortedValidationMessage } from '../limits/use-aborted-validation-message.js';
import { useMaxDocumentLength } from '../limits/use-max-document-length.js';
import { useMaxExpandedSelections } from '../limits/use-max-expanded-selections.js';
import { useMaxResultFields } from '../limits/use-max-result-fields.js';
import { useNoIntrospection } from '../limits/use-no-introspection.js';
import { useOperationSelection } from './use-operation-selection.js';
import { useQueryStringJson } from './use-query-string-json.js';
import { useQueryRequired } from './use-query-required.js';
import { DOCUMENT_ID_PARAM, useTrustedDocuments } from './use-trusted-documents.js';
import { useUpstreamSearchBudget } from '../limits/use-upstream-search-budget.js';

/** The settings that shape what Yoga accepts, and NODE_ENV=production's (field suggestions off). */
export type YogaProtection = GraphqlSettings & RequestLimitSettings & { production: boolean };

/**
 * Armor's rules throw by default, which Yoga answers as an execution error
 * with status 200; reported like any validation error they get 400 and
 * `GRAPHQL_VALIDATION_FAILED`.
 */
const REPORT_AS_VALIDATION_ERROR = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/**
 * The checks and operation limits, in the order Yoga meets them: the JSON
 * body and each operation in it, JSON in GET parameters and form bodies, the
 * trusted-documents check and the document length on the request's
 * parameters, the token count and the choice of operation while parsing, the
 * size with fragments expanded before validating, depth, aliases, directives
 * and introspection while validating, and, once the variables are known,
 * their coercion, the size of the answer and the upstream search budget.
 * Every refusal comes before any resolver runs.
 */
/** The request parameters taken besides GraphQL-over-HTTP's own: a trusted document's id where they run. */
export function extraParamNames(protection: Pick<YogaProtection, 'trustedDocuments'>): string[] {
  return protection.trustedDocuments ? [DOCUMENT_ID_PARAM] : [];
}

export function protectionPlugins(protection: YogaProtection): NonNullable<YogaServerOptions<object, object>['plugins']> {
  return [
    // First: every later plugin reads the parameters of an operation, and so must find an object.
    useJsonBody(),
    useQueryStringJson(),
    ...(protection.trustedDocuments
      ? [useTrustedDocuments({ manifest: protection.trustedDocuments, allowArbitraryOperations: protection.allowArbitraryOperations })]
      : []),
    // Once a trusted document's id has given its document.
    useQueryRequired({ extraParamNames: extraParamNames(protection) }),
    useMaxDocumentLength({ maxLength: protection.maxDocumentLength }),
    maxTokensPlugin({ n: protection.maxTokens }),
    useOperationSelection(),
    // Before every validation rule, so that none of them meets a document too large once its fragments are expanded.
    useMaxExpandedSelections({ maxSelections: protection.maxExpandedSelections }),
    // Fragments are a way of writing a selection, not a level of nesting.
    maxDepthPlugin({ n: protection.maxDepth, flattenFragments: true, ...REPORT_AS_VALIDATION_ERROR }),
    maxAliasesPlugin({ n: protection.maxAliases, ...REPORT_AS_VALIDATION_ERROR }),
    maxDirectivesPlugin({ n: protection.maxDirectives, ...REPORT_AS_VALIDATION_ERROR }),
    useAbortedValidationMessage(),
    ...(protection.introspection ? [] : [useNoIntrospection()]),
    // Suggestions would name the fields that disabled introspection hides.
    ...(protection.production ? [blockFieldSuggestionsPlugin()] : []),
    // Before every plugin that reads the variables: a variable that cannot be coerced is answered here, with its code.
    useMaxResultFields({ maxFields: protection.maxResultFields }),
    useUpstreamSearchBudget({ maxSearches: protection.maxUpstreamSearches }),
  ];
}
