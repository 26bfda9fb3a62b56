import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { ASYNC_RESOLVERS } from '../../schema/async-resolvers.js';
import type { GatewayContext } from '../../schema/context.js';
import { expandedSelections } from '../limits/expanded-selections.js';
import { Rerunnable, withMemoizedRoots } from './compiled-execution/memoized-roots.js';
import { type SettleOrder, UNPREDICTABLE, settle, settleOrderOf } from './compiled-execution/settle-order.js';

export interface CompiledExecutionOptions {
  /**
   * Executions of an operation run by graphql-js before it is compiled: a
   * compilation costs tens of executions, worth paying only for the documents
   * clients send again and again, not for each one-off a client makes up.
   */
  compileAfter?: number;
  /** Operations with more selections, fragments expanded where spread, stay on graphql-js. */
  maxSelections?: number;
  /** Selections of all the compiled plans kept at once; the least recently used go first. */
  selectionsBudget?: number;
  /** Told how each compiled operation was answered: by its compiled plan, or run again by graphql-js. */
  observe?: ((answeredBy: 'compiled' | 'graphql-js') => void) | undefined;
}

export const DEFAULT_COMPILE_AFTER = 2;
/**
 * Five times the card query (test/operations/search-companies.graphql, 40):
 * compiling costs about 7 ms of CPU at 40 selections, 9 ms at 350 and 42 ms at
 * the 1,700 the document limits let through, which no client repeating its
 * queries needs and a client making them up would make others pay for.
 */
export const DEFAULT_MAX_COMPILED_SELECTIONS = 200;
/**
 * A compiled card query holds about 160 KiB of heap besides its document
 * (4 KiB a selection), far more than the document cache counts for its
 * text: plans are bounded on their own, here to about 16 MiB.
 */
export const DEFAULT_COMPILED_SELECTIONS_BUDGET = 4_000;
/**
 * A plan keeps its document, and the text its locations point into, alive
 * after the document cache has let it go: 4,000 plans of one selection each
 * under a 10,000-character comment held 50 MiB more heap than none. A plan
 * counts a selection (4 KiB) more per 2,048 characters, two bytes each at worst.
 */
export const PLAN_CHARS_PER_SELECTION = 2_048;

type Execute = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;
type CompiledQueryFn = (root: unknown, context: unknown, variables: unknown) => ExecutionResult | Promise<ExecutionResult>;

interface Progress {
  /** Executions by graphql-js since the operation was parsed, or its plan last evicted. */
  executions: number;
  /** graphql-js: it keeps running the operation, which cannot be compiled or answers otherwise compiled. */
  state: 'counting' | 'compiled' | 'graphql-js';
}

interface Plan {
  query: CompiledQueryFn;
  order: SettleOrder | null;
  /** What it counts against selectionsBudget: its selections, and its document's text (PLAN_CHARS_PER_SELECTION). */
  size: number;
}

/**
 * Executes the queries clients repeat with graphql-jit: compiled once into a
 * function of their selection, they run without graphql-js's walk of the
 * document per request. Answers stay byte for byte graphql-js's
 * (test/gateway/compiled-execution.test.ts):
 * - a compiled answer with any error, or whose nested resolvers noted a
 *   partial error, is discarded and the operation run again by the
 *   executor Yoga would have run; root fields resolve once per request
 *   (compiled-execution/memoized-roots.ts), so the upstream is not called
 *   twice, and the notes are rolled back to where the root field left them;
 * - keys are put in the order @graphql-tools/executor writes them, an
 *   asynchronous field after the synchronous ones (compiled-execution/settle-order.ts);
 *   an operation where that order depends on which promise settles first is
 *   left to graphql-js, as is any operation but a query.
 * Plans are bounded by their selections (maxSelections each, selectionsBudget in all, their documents' text counted in).
 */
export function useCompiledExecution({
  compileAfter = DEFAULT_COMPILE_AFTER,
  maxSelections = DEFAULT_MAX_COMPILED_SELECTIONS,
  selectionsBudget = DEFAULT_COMPILED_SELECTIONS_BUDGET,
  observe,
}: CompiledExecutionOptions = {}): Plugin {
  const progress = new WeakMap<OperationDefinitionNode, Progress>();
  const plans = new LRUCache<OperationDefinitionNode, Plan>({
    maxSize: selectionsBudget,
    sizeCalculation: (plan) => plan.size,
    // Evicted, an operation counts its executions again before it is compiled again.
    dispose: (_plan, operation) => progress.set(operation, { executions: 0, state: 'counting' }),
  });
  const runs = new WeakMap<object, Rerunnable>();
  const copies = new WeakMap<GraphQLSchema, GraphQLSchema>();
  const memoizedCopyOf = (schema: GraphQLSchema) => {
    let copy = copies.get(schema);
    if (copy === undefined) {
      copy = withMemoizedRoots(schema, runs);
      copies.set(schema, copy);
    }
    return copy;
  };

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query') return;
      let counted = progress.get(operation);
      if (counted === undefined) {
        counted = { executions: 0, state: 'counting' };
        progress.set(operation, counted);
      }
      if (counted.state === 'graphql-js') return;
      let plan = counted.state === 'compiled' ? plans.get(operation) : undefined;
      if (plan === undefined) {
        counted.executions += 1;
        if (counted.executions <= compileAfter) return;
        const compiled = compileOrNull(memoizedCopyOf(args.schema), args.document, operation, maxSelections);
        if (compiled === null) {
          counted.state = 'graphql-js';
          return;
        }
        plan = compiled;
        counted.state = 'compiled';
        plans.set(operation, plan);
      }
      const { query, order } = plan;
      const schema = memoizedCopyOf(args.schema);
      setExecuteFn((executionArgs) => {
        const context = executionArgs.contextValue as GatewayContext;
        const run = new Rerunnable(context);
        runs.set(context, run);
        const runAgain = () => {
          context.notes.rollback(run.settled);
          observe?.('graphql-js');
          return (executeFn as Execute)({ ...executionArgs, schema });
        };
        // A plan that throws (a fault of graphql-jit's or of the settle order) is dropped: graphql-js answers, now and from then on.
        const dropPlan = () => {
          plans.delete(operation);
          progress.set(operation, { executions: 0, state: 'graphql-js' });
          return runAgain();
        };
        const answer = (compiled: ExecutionResult) => {
          // A partial error a nested resolver noted is written by graphql-js (its path and locations); warnings are not
          // the executor's to write, so a compiled answer carries them as graphql-js's would.
          if (compiled.errors?.length || context.notes.errors.length > run.settled.errors) return runAgain();
          const inOrder: ExecutionResult = { data: compiled.data };
          try {
            if (order !== null) settle(inOrder as Record<string, unknown>, 'data', order);
          } catch {
            return dropPlan();
          }
          observe?.('compiled');
          return inOrder;
        };
        let result: ReturnType<CompiledQueryFn>;
        try {
          result = query(executionArgs.rootValue, context, executionArgs.variableValues);
        } catch {
          return dropPlan();
        }
        return result instanceof Promise ? result.then(answer, dropPlan) : answer(result);
      });
    },
  };
}

/** A plan for `operation`, or null when graphql-js must run it: too large, its order unknown, or failing to compile. */
function compileOrNull(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  maxSelections: number,
): Plan | null {
  try {
    return compile(schema, document, operation, maxSelections);
  } catch {
    // A document graphql-jit cannot compile is still one graphql-js answers.
    return null;
  }
}

function compile(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, maxSelections: number): Plan | null {
  const selections = expandedSelections(document);
  if (selections > maxSelections) return null;
  // A variable named __proto__ is lost by graphql-js's coercion (assigned to a plain object) and kept by graphql-jit's.
  if (operation.variableDefinitions?.some(({ variable }) => variable.name.value === '__proto__')) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const order = settleOrderOf(schema, operation, fragments, ASYNC_RESOLVERS);
  if (order === UNPREDICTABLE) return null;
  const compiled = compileQuery(schema, document, operation.name?.value);
  if (!isCompiledQuery(compiled)) return null;
  const text = document.loc?.source.body.length ?? 0;
  return { query: compiled.query as CompiledQueryFn, order, size: selections + Math.ceil(text / PLAN_CHARS_PER_SELECTION) };
}
