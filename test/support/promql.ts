/** One series selector of a PromQL expression: the metric's name and what is between its braces, as written. */
export interface Selector {
  name: string;
  matchers: string;
}

/** Words that are never a metric's name: aggregations (followed by `by`/`without` rather than a parenthesis) and operators. */
const NOT_NAMES = new Set([
  ...['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile'],
  ...['and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan'],
]);
/** Words followed by a list of label names in parentheses. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/**
 * Every series selector of `expr`, in order: enough of PromQL's grammar for
 * the dashboard's queries and the alert rules (strings, label matchers,
 * ranges, label lists, function calls, numbers, Grafana's `$variables`),
 * written here because neither Prometheus 2.42's HTTP API nor promtool says
 * which metrics an expression names. A selector without a name (`{job="x"}`)
 * is refused: every query here names its metric.
 */
export function selectorsOf(expr: string): Selector[] {
  const selectors: Selector[] = [];
  let i = 0;
  while (i < expr.length) {
    const rest = expr.slice(i);
    const skipped =
      /^(?:"(?:[^"\\]|\\.)*"|offset\s+-?\d+[a-z]+|\[[^\]]*\]|\$\{[^}]*\}|\$\w+|\d[\d.]*(?:e[+-]?\d+)?|\s+|[-+*/^%=!<>(),])/i.exec(rest);
    if (skipped) {
      i += skipped[0].length;
      continue;
    }
    const word = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest)?.[0];
    if (word === undefined) throw new Error(`selectorsOf: cannot read ${JSON.stringify(rest.slice(0, 40))} in ${expr}`);
    i += word.length;
    const after = expr.slice(i);
    if (LABEL_LISTS.has(word)) {
      const list = /^\s*\([^)]*\)/.exec(after);
      if (list) i += list[0].length;
      continue;
    }
    if (NOT_NAMES.has(word) || /^\s*\(/.test(after)) continue;
    const braces = /^\s*\{((?:[^}"]|"(?:[^"\\]|\\.)*")*)\}/.exec(after);
    if (braces) i += braces[0].length;
    selectors.push({ name: word, matchers: braces?.[1] ?? '' });
  }
  return selectors;
}

/**
 * The names of every series an exposition (Prometheus' text format) can hold,
 * read from its `# TYPE` lines, so that a metric registered but without a
 * value yet counts: a histogram's or summary's family gives its `_bucket`,
 * `_sum` and `_count` series too.
 */
export function exposedSeriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}
