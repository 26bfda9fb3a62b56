import { Kind, type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/** What one definition holds before its fragment spreads are expanded. */
interface Written {
  /** Fields, inline fragments and fragment spreads, at any depth. */
  selections: number;
  /** How many times each fragment is spread in it, at any depth. */
  spreads: Map<string, number>;
}

/**
 * How many selections (fields, inline fragments and fragment spreads) the
 * document holds once every fragment spread is replaced by the fragment's
 * own selections: the most work any walk that follows fragments where they
 * are spread can do on it. Operations count, and so do fragments no
 * operation reaches, since validation walks those too.
 *
 * Linear in the document: each definition is read once and each fragment's
 * expanded size computed once, however often it is spread, so a fragment that
 * spreads the next one twice, 60 deep, costs 60 steps, not 2^60. Neither walk
 * recurses, so a long chain of fragments cannot overflow the stack. A spread
 * that closes a cycle adds nothing beyond itself (validation refuses cycles).
 * The count stops growing at Number.MAX_SAFE_INTEGER.
 */
export function expandedSelections(document: DocumentNode): number {
  // Execution and validation both take the last definition of a name.
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const written = new Map<DefinitionNode, Written>();
  const writtenIn = (definition: DefinitionNode): Written => {
    let found = written.get(definition);
    if (found === undefined) {
      found = countWritten(definition);
      written.set(definition, found);
    }
    return found;
  };
  const expanded = expandFragments(fragments, writtenIn);

  const reached = reachedFromOperations(document, fragments, writtenIn);
  let total = 0;
  for (const definition of document.definitions) {
    const unreached = definition.kind === Kind.FRAGMENT_DEFINITION && !reached.has(definition);
    if (definition.kind === Kind.OPERATION_DEFINITION || unreached) {
      total = capped(total + sizeOf(writtenIn(definition), expanded));
    }
  }
  return total;
}

/** Each fragment's expanded size, by name, computed on first use in post-order with an explicit stack. */
function expandFragments(
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  writtenIn: (fragment: FragmentDefinitionNode) => Written,
): (name: string) => number {
  const sizes = new Map<string, number>();
  const open = new Set<string>();
  return (name) => {
    const stack = [name];
    while (stack.length > 0) {
      const current = stack[stack.length - 1]!;
      const fragment = fragments.get(current);
      if (sizes.has(current) || fragment === undefined) {
        stack.pop();
      } else if (!open.has(current)) {
        open.add(current);
        for (const spread of writtenIn(fragment).spreads.keys()) {
          if (!sizes.has(spread) && !open.has(spread)) stack.push(spread);
        }
      } else {
        // Every fragment it spreads is sized now, or open further down the stack: a cycle, counted as 0.
        sizes.set(
          current,
          sizeOf(writtenIn(fragment), (spread) => sizes.get(spread) ?? 0),
        );
        open.delete(current);
        stack.pop();
      }
    }
    return sizes.get(name) ?? 0;
  };
}

function sizeOf({ selections, spreads }: Written, expanded: (name: string) => number): number {
  let size = selections;
  for (const [name, times] of spreads) size = capped(size + times * expanded(name));
  return size;
}

function countWritten(definition: DefinitionNode): Written {
  const counted: Written = { selections: 0, spreads: new Map() };
  if (definition.kind !== Kind.OPERATION_DEFINITION && definition.kind !== Kind.FRAGMENT_DEFINITION) return counted;
  // Selection sets only, from a stack of its own: graphql-js's visit would also walk every argument and name.
  const sets: SelectionSetNode[] = [definition.selectionSet];
  for (let set = sets.pop(); set !== undefined; set = sets.pop()) {
    for (const selection of set.selections) {
      counted.selections += 1;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        counted.spreads.set(selection.name.value, (counted.spreads.get(selection.name.value) ?? 0) + 1);
      } else if (selection.selectionSet !== undefined) {
        sets.push(selection.selectionSet);
      }
    }
  }
  return counted;
}

/** The fragment definitions some operation spreads, directly or through other fragments. */
function reachedFromOperations(
  document: DocumentNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  writtenIn: (definition: DefinitionNode) => Written,
): Set<DefinitionNode> {
  const reached = new Set<DefinitionNode>();
  const pending: string[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) pending.push(...writtenIn(definition).spreads.keys());
  }
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const fragment = fragments.get(name);
    if (fragment === undefined || reached.has(fragment)) continue;
    reached.add(fragment);
    pending.push(...writtenIn(fragment).spreads.keys());
  }
  return reached;
}

function capped(count: number): number {
  return Math.min(count, Number.MAX_SAFE_INTEGER);
}
