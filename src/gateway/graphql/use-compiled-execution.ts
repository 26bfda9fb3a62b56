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
import { ASYNC_RESOLVERS } from '../../schema/async-resolvers.js';
import type { GatewayContext } from '../../schema/context.js';
import { Rerunnable, withMemoizedRoots } from './compiled-execution/memoized-roots.js';
import { type SettleOrder, UNPREDICTABLE, settle, settleOrderOf } from './compiled-execution/settle-order.js';

export interface CompiledExecutionOptions {
  /**
   * Executions of an operation run by graphql-js before it is compiled: a
   * compilation costs tens of executions, worth paying only for the documents
   * clients send again and again, not for each one-off a client makes up.
   */
  compileAfter?: number;
  /** Told how each compiled operation was answered: by its compiled plan, or run again by graphql-js. */
  observe?: ((answeredBy: 'compiled' | 'graphql-js') => void) | undefined;
}

export const DEFAULT_COMPILE_AFTER = 2;

type Execute = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;
type CompiledQueryFn = (root: unknown, context: unknown, variables: unknown) => ExecutionResult | Promise<ExecutionResult>;

interface Plan {
  executions: number;
  /** Undefined until compiled; null where graphql-js keeps running the operation. */
  compiled: { query: CompiledQueryFn; order: SettleOrder | null } | null | undefined;
}

/**
 * Executes the queries clients repeat with graphql-jit: compiled once into a
 * function of their selection, they run without graphql-js's walk of the
 * document per request. Answers stay byte for byte graphql-js's
 * (test/gateway/compiled-execution.test.ts):
 * - a compiled answer with any error, or whose nested resolvers noted a
 *   partial error or warning, is discarded and the operation run again by the
 *   executor Yoga would have run; root fields resolve once per request
 *   (compiled-execution/memoized-roots.ts), so the upstream is not called
 *   twice, and the notes are rolled back to where the root field left them;
 * - keys are put in the order @graphql-tools/executor writes them, an
 *   asynchronous field after the synchronous ones (compiled-execution/settle-order.ts);
 *   an operation where that order depends on which promise settles first is
 *   left to graphql-js, as is any operation but a query.
 * Plans live as long as their parsed document, which the document cache bounds.
 * Not used where resolvers are traced: graphql-jit's resolvers would make other spans.
 */
export function useCompiledExecution({ compileAfter = DEFAULT_COMPILE_AFTER, observe }: CompiledExecutionOptions = {}): Plugin {
  const plans = new WeakMap<OperationDefinitionNode, Plan>();
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
      let plan = plans.get(operation);
      if (plan === undefined) {
        plan = { executions: 0, compiled: undefined };
        plans.set(operation, plan);
      }
      if (plan.compiled === undefined) {
        plan.executions += 1;
        if (plan.executions <= compileAfter) return;
        plan.compiled = compile(memoizedCopyOf(args.schema), args.document, operation);
      }
      if (!plan.compiled) return;
      const { query, order } = plan.compiled;
      const schema = memoizedCopyOf(args.schema);
      setExecuteFn((executionArgs) => {
        const context = executionArgs.contextValue as GatewayContext;
        const run = new Rerunnable(context);
        runs.set(context, run);
        const result = query(executionArgs.rootValue, context, executionArgs.variableValues);
        const answer = (compiled: ExecutionResult) => {
          const { notes } = context;
          if (compiled.errors?.length || notes.errors.length > run.settled.errors || notes.warnings.length > run.settled.warnings) {
            notes.rollback(run.settled);
            observe?.('graphql-js');
            return (executeFn as Execute)({ ...executionArgs, schema });
          }
          observe?.('compiled');
          const inOrder: ExecutionResult = { data: compiled.data };
          if (order !== null) settle(inOrder as Record<string, unknown>, 'data', order);
          return inOrder;
        };
        return result instanceof Promise ? result.then(answer) : answer(result);
      });
    },
  };
}

function compile(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Plan['compiled'] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const order = settleOrderOf(schema, operation, fragments, ASYNC_RESOLVERS);
  if (order === UNPREDICTABLE) return null;
  const compiled = compileQuery(schema, document, operation.name?.value);
  if (!isCompiledQuery(compiled)) return null;
  return { query: compiled.query as CompiledQueryFn, order };
}
