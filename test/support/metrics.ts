import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { send } from './http.js';
import { exposedSeriesNames } from './promql.js';
import { startStack } from './stack.js';

/** One scrape: every sample by its series as written (`name{label="value",...}`), and the exposition itself. */
export interface Scrape {
  text: string;
  series: Map<string, number>;
}

export async function scrape(metricsUrl: string): Promise<Scrape> {
  const answer = await send(metricsUrl);
  expect(answer.status).toBe(200);
  const series = new Map<string, number>();
  for (const line of answer.text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    series.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return { text: answer.text, series };
}

/** How each of `names` moved from `before` to `after` (a series absent counts 0), for one exact assertion over all of them. */
export function changes(before: Scrape, after: Scrape, names: readonly string[]): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, (after.series.get(name) ?? 0) - (before.series.get(name) ?? 0)]));
}

/** Every series that moved from `before` to `after` whose name starts with `prefix`. */
export function moved(before: Scrape, after: Scrape, prefix: string): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [name, value] of after.series) {
    if (!name.startsWith(prefix)) continue;
    const change = value - (before.series.get(name) ?? 0);
    if (change !== 0) result[name] = change;
  }
  return result;
}

/** Prometheus' own parser and linter over an exposition: its complaints, empty when it passes. */
export function promtoolProblems(exposition: string): string {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (run.error) throw run.error;
  return run.status === 0 ? '' : `${run.stdout}${run.stderr}`.trim() || `promtool exited ${run.status}`;
}

/** The name of every series the gateway can export, from the `# TYPE` lines of a real gateway's /metrics. */
export async function exportedSeriesNames(): Promise<Set<string>> {
  const stack = await startStack({ gateway: { metricsPort: 0 } });
  try {
    return exposedSeriesNames((await scrape(stack.gateway.metricsUrl!)).text);
  } finally {
    await stack.close();
  }
}
