import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD } from '../../scripts/monitoring/dashboard.js';
import { DATASOURCE, dashboardJson } from '../../scripts/monitoring/grafana.js';
import { type DashboardJson, dashboardQueries, readDashboard } from '../support/dashboard.js';
import { exportedSeriesNames } from '../support/metrics.js';
import { selectorsOf } from '../support/promql.js';

const FILTERS = ['job=~"$job"', 'instance=~"$instance"'];

let dashboard: DashboardJson;
let exported: Set<string>;

beforeAll(async () => {
  dashboard = readDashboard();
  exported = await exportedSeriesNames();
});

describe('the Grafana dashboard (deploy/grafana/company-search-gateway.json)', () => {
  it('is what `npm run monitoring:generate` writes from its declaration', () => {
    expect(dashboard).toEqual(JSON.parse(JSON.stringify(dashboardJson(DASHBOARD))));
  });

  it('has a Prometheus data-source variable, job and instance filters, and every panel and query takes them', () => {
    const variables = Object.fromEntries((dashboard.templating.list as DashboardJson[]).map((variable) => [variable.name, variable]));
    expect(variables.datasource).toMatchObject({ type: 'datasource', query: 'prometheus' });
    // Every panel's data source is that variable's choice.
    expect(DATASOURCE).toEqual({ type: 'prometheus', uid: `\${${variables.datasource.name}}` });
    expect(variables.job).toMatchObject({ type: 'query', definition: 'label_values(csg_http_requests_total, job)', includeAll: true });
    expect(variables.instance).toMatchObject({
      type: 'query',
      definition: 'label_values(csg_http_requests_total{job=~"$job"}, instance)',
      includeAll: true,
      multi: true,
    });
    const panels = (dashboard.panels as DashboardJson[]).filter((panel) => panel.type !== 'row');
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual(DATASOURCE);
      for (const target of panel.targets as DashboardJson[]) expect(target.datasource, panel.title).toEqual(panel.datasource);
    }
    for (const { panel, expr } of dashboardQueries(dashboard)) {
      for (const { name, matchers } of selectorsOf(expr)) {
        for (const filter of FILTERS) expect(matchers, `${panel}: ${name} in ${expr}`).toContain(filter);
      }
    }
  });

  it('has rows, each with panels, and no panel without a query', () => {
    const rows = (dashboard.panels as DashboardJson[]).filter((panel) => panel.type === 'row').map((row) => row.title);
    expect(rows).toEqual([
      'Is it answering?',
      'Is it sparing the upstream?',
      'Is the upstream healthy?',
      'Is the fleet sharing?',
      'Are clients being limited?',
      'Is the process healthy?',
    ]);
    const panels = (dashboard.panels as DashboardJson[]).filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThan(rows.length);
    for (const panel of panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets as DashboardJson[]) expect(target.expr.trim(), panel.title).not.toBe('');
      expect(panel.description, panel.title).toBeTruthy();
    }
    expect(new Set(panels.map((panel) => panel.title)).size).toBe(panels.length);
    expect(new Set((dashboard.panels as DashboardJson[]).map((panel) => panel.id)).size).toBe(dashboard.panels.length);
  });

  it('names in its queries only metrics a gateway exports, as read from its /metrics', () => {
    const named = new Set(dashboardQueries(dashboard).flatMap(({ expr }) => selectorsOf(expr).map((selector) => selector.name)));
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
    // Every row reads the gateway's own metrics, and the last Node's too.
    expect([...named].filter((name) => name.startsWith('csg_')).length).toBeGreaterThan(15);
    expect([...named].filter((name) => /^(nodejs|process)_/.test(name)).sort()).toEqual([
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds_sum',
      'nodejs_heap_size_used_bytes',
      'process_cpu_seconds_total',
      'process_max_fds',
      'process_open_fds',
      'process_resident_memory_bytes',
    ]);
  });

  it('finds a metric the gateway does not export, so the check above can fail', () => {
    const selectors = selectorsOf(
      'sum by (le) (rate(csg_nope_seconds_bucket{job=~"$job"}[$__rate_interval])) / on (instance) group_left max(csg_cache_max_bytes) * 2^30',
    );
    expect(selectors).toEqual([
      { name: 'csg_nope_seconds_bucket', matchers: 'job=~"$job"' },
      { name: 'csg_cache_max_bytes', matchers: '' },
    ]);
    expect(exported.has('csg_nope_seconds_bucket')).toBe(false);
    expect(exported.has('csg_cache_max_bytes')).toBe(true);
  });
});
