/**
 * Grafana's dashboard JSON (schema version 39) from a short declaration: a
 * row per question, panels with their queries, units and thresholds. Every
 * panel's data source is the dashboard's `datasource` variable, so that the
 * JSON loads as it is into any Grafana (through the UI, provisioning or the
 * sidecar of a Helm chart) and finds its Prometheus there.
 */

/** One PromQL query of a panel and the name of each series it gives (Grafana's `{{label}}` templates). */
export interface Query {
  expr: string;
  legend: string;
}

export interface PanelSpec {
  title: string;
  /** What the panel answers and how to read it: shown in the panel's (i) tooltip. */
  description: string;
  /** `timeseries` over the chosen range; `stat`, one value now (instant queries). */
  type?: 'timeseries' | 'stat';
  /** Grafana's unit id: `reqps`, `percentunit`, `s`, `bytes`, `short`, `cpm`... */
  unit: string;
  queries: readonly Query[];
  /** A dashed line (timeseries) or a red value (stat) from this value on. */
  threshold?: number;
  /** Series stacked on one another: parts of a whole. */
  stacked?: boolean;
  /** Columns of 24 (default: three panels a line). */
  width?: number;
}

export interface RowSpec {
  title: string;
  panels: readonly PanelSpec[];
}

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  tags: readonly string[];
  /** Variables after the data source's, in order (Grafana's templating entries). */
  variables: readonly Record<string, unknown>[];
  rows: readonly RowSpec[];
}

const PANEL_HEIGHT = 8;
/** Grafana's own variable syntax, which it replaces by the data source chosen. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable, not a template string
export const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

/** The dashboard's JSON, panels laid out row after row, left to right. */
export function dashboardJson(spec: DashboardSpec): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let id = 0;
  let y = 0;
  for (const row of spec.rows) {
    panels.push({ type: 'row', id: ++id, title: row.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    let x = 0;
    for (const panel of row.panels) {
      const w = panel.width ?? 8;
      if (x + w > 24) {
        x = 0;
        y += PANEL_HEIGHT;
      }
      panels.push(panelJson(panel, ++id, { h: PANEL_HEIGHT, w, x, y }));
      x += w;
    }
    y += PANEL_HEIGHT;
  }
  return {
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    description: spec.description,
    editable: true,
    graphTooltip: 1,
    links: [],
    panels,
    refresh: '30s',
    schemaVersion: 39,
    tags: spec.tags,
    templating: {
      list: [
        { name: 'datasource', label: 'Prometheus', type: 'datasource', query: 'prometheus', current: {}, hide: 0, refresh: 1 },
        ...spec.variables,
      ],
    },
    time: { from: 'now-6h', to: 'now' },
    timepicker: {},
    timezone: 'browser',
    title: spec.title,
    uid: spec.uid,
    version: 1,
  };
}

/** A query variable whose values are those of `label` on the series of `selector`, chosen one, several or all. */
export function labelVariable(name: string, label: string, selector: string): Record<string, unknown> {
  return {
    name,
    label,
    type: 'query',
    datasource: DATASOURCE,
    definition: `label_values(${selector}, ${name})`,
    query: { query: `label_values(${selector}, ${name})`, refId: `${name}-values` },
    refresh: 2,
    multi: true,
    includeAll: true,
    allValue: '.+',
    current: { selected: true, text: ['All'], value: ['$__all'] },
    sort: 1,
    hide: 0,
  };
}

/** A value the operator types in, e.g. a quota no metric knows. */
export function textVariable(name: string, label: string, value: string, description: string): Record<string, unknown> {
  return { name, label, description, type: 'textbox', query: value, current: { text: value, value }, hide: 0 };
}

function panelJson(panel: PanelSpec, id: number, gridPos: Record<string, number>): Record<string, unknown> {
  const type = panel.type ?? 'timeseries';
  const steps: Record<string, unknown>[] = [{ color: 'green', value: null }];
  if (panel.threshold !== undefined) steps.push({ color: 'red', value: panel.threshold });
  const defaults: Record<string, unknown> = {
    unit: panel.unit,
    min: 0,
    color: { mode: type === 'stat' ? 'thresholds' : 'palette-classic' },
    thresholds: { mode: 'absolute', steps },
  };
  if (type === 'timeseries') {
    defaults.custom = {
      drawStyle: 'line',
      lineWidth: 1,
      fillOpacity: panel.stacked ? 30 : 10,
      showPoints: 'never',
      spanNulls: false,
      stacking: { mode: panel.stacked ? 'normal' : 'none', group: 'A' },
      thresholdsStyle: { mode: panel.threshold === undefined ? 'off' : 'dashed' },
    };
  }
  const options =
    type === 'stat'
      ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'none', textMode: 'auto' }
      : { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } };
  return {
    type,
    id,
    title: panel.title,
    description: panel.description,
    datasource: DATASOURCE,
    gridPos,
    fieldConfig: { defaults, overrides: [] },
    options,
    targets: panel.queries.map((query, index) => ({
      refId: String.fromCharCode(65 + index),
      datasource: DATASOURCE,
      editorMode: 'code',
      expr: query.expr,
      legendFormat: query.legend,
      range: type === 'timeseries',
      instant: type === 'stat',
    })),
  };
}
