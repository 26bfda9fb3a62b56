import type { Metric, Registry } from 'prom-client';

/** A label and every value it may take: no label ever takes a value from a request. */
export type LabelSpec = readonly (readonly [name: string, values: readonly string[]])[];

interface Cell {
  labels: Record<string, string>;
  value: number;
}

interface HistogramCell extends Cell {
  /** Observations per bucket, not yet cumulative; the last is +Inf. */
  buckets: Float64Array;
  sum: number;
}

type CellTree<C> = Map<string, CellTree<C> | C>;

/**
 * Every combination of label values, made once, in a tree of maps: finding a
 * cell costs a map lookup per label and allocates nothing, where prom-client's
 * `inc(labels)` builds and hashes a label object on every call. A value outside
 * the label's list finds no cell and is not counted.
 */
function cellsOf<C extends Cell>(labels: LabelSpec, make: (labels: Record<string, string>) => C): { tree: CellTree<C>; all: C[] } {
  const all: C[] = [];
  const build = (depth: number, chosen: Record<string, string>): CellTree<C> | C => {
    if (depth === labels.length) {
      const cell = make(chosen);
      all.push(cell);
      return cell;
    }
    const [name, values] = labels[depth]!;
    return new Map(values.map((value) => [value, build(depth + 1, { ...chosen, [name]: value })]));
  };
  const root = build(0, {});
  return { tree: root instanceof Map ? root : new Map([['', root]]), all };
}

function find<C>(tree: CellTree<C>, depth: number, a: string | undefined, b: string | undefined, c: string | undefined): C | undefined {
  if (depth === 0) return tree.get('') as C | undefined;
  const first = tree.get(a!);
  if (depth === 1 || first === undefined) return first as C | undefined;
  const second = (first as CellTree<C>).get(b!);
  if (depth === 2 || second === undefined) return second as C | undefined;
  return (second as CellTree<C>).get(c!) as C | undefined;
}

/** What prom-client's registry reads of a metric to write it out; its own metrics are classes, these are not. */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram' | 'gauge';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: unknown[] }>;
}

function register(registry: Registry, metric: Exported): void {
  registry.registerMetric(metric as unknown as Metric);
}

/**
 * A counter with fixed label values. Families of one label (or none) show
 * every value from the start, at 0, so that `rate()` sees the first
 * increment; wider ones, and those made with `zeroes: false` (one label of
 * many values, such as error codes), show only the values that happened.
 */
export class CounterFamily {
  readonly #tree: CellTree<Cell>;
  readonly #depth: number;

  constructor(registry: Registry, name: string, help: string, labels: LabelSpec = [], { zeroes = labels.length <= 1 } = {}) {
    const { tree, all } = cellsOf<Cell>(labels, (chosen) => ({ labels: chosen, value: 0 }));
    this.#tree = tree;
    this.#depth = labels.length;
    const everyValue = zeroes;
    register(registry, {
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({
        name,
        help,
        type: 'counter',
        aggregator: 'sum',
        values: all.filter((cell) => everyValue || cell.value > 0).map(({ labels, value }) => ({ labels, value })),
      }),
    });
  }

  inc(a?: string, b?: string, c?: string): void {
    const cell = find(this.#tree, this.#depth, a, b, c);
    if (cell) cell.value += 1;
  }
}

/** A histogram with fixed label values and buckets (upper bounds, ascending); shown like CounterFamily. */
export class HistogramFamily {
  readonly #tree: CellTree<HistogramCell>;
  readonly #depth: number;
  readonly #bounds: readonly number[];

  constructor(registry: Registry, name: string, help: string, bounds: readonly number[], labels: LabelSpec = []) {
    const { tree, all } = cellsOf<HistogramCell>(labels, (chosen) => ({
      labels: chosen,
      value: 0,
      buckets: new Float64Array(bounds.length + 1),
      sum: 0,
    }));
    this.#tree = tree;
    this.#depth = labels.length;
    this.#bounds = bounds;
    const everyValue = labels.length <= 1;
    const les = [...bounds.map(String), '+Inf'];
    register(registry, {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({
        name,
        help,
        type: 'histogram',
        aggregator: 'sum',
        values: all
          .filter((cell) => everyValue || cell.value > 0)
          .flatMap((cell) => {
            let cumulative = 0;
            return [
              ...les.map((le, i) => {
                cumulative += cell.buckets[i]!;
                return { metricName: `${name}_bucket`, labels: { ...cell.labels, le }, value: cumulative };
              }),
              { metricName: `${name}_sum`, labels: cell.labels, value: cell.sum },
              { metricName: `${name}_count`, labels: cell.labels, value: cell.value },
            ];
          }),
      }),
    });
  }

  observe(value: number, a?: string, b?: string, c?: string): void {
    const cell = find(this.#tree, this.#depth, a, b, c);
    if (!cell) return;
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i += 1;
    cell.buckets[i]! += 1;
    cell.sum += value;
    cell.value += 1;
  }
}

/**
 * A gauge without labels, read at each scrape and absent while `read` gives
 * undefined: prom-client's own Gauge without labels shows 0 until it is set
 * and again after reset(), which would read as a value (not sharing, a token
 * expiring now) where there is none.
 */
export function readGauge(
  registry: Registry,
  name: string,
  help: string,
  read: () => number | undefined | Promise<number | undefined>,
): void {
  register(registry, {
    name,
    help,
    type: 'gauge',
    aggregator: 'sum',
    get: async () => {
      const value = await read();
      return { name, help, type: 'gauge', aggregator: 'sum', values: value === undefined ? [] : [{ labels: {}, value }] };
    },
  });
}
