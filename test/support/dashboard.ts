import { readFileSync } from 'node:fs';

/** The dashboard as shipped (deploy/grafana/), as Grafana reads it. */
export const DASHBOARD_FILE = new URL('../../deploy/grafana/company-search-gateway.json', import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: Grafana's JSON as written, checked by the tests that read it
export type DashboardJson = Record<string, any>;

export interface DashboardQuery {
  row: string;
  panel: string;
  type: string;
  legend: string;
  expr: string;
}

export function readDashboard(): DashboardJson {
  return JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as DashboardJson;
}

/** Every query of every panel, with the row it sits under. */
export function dashboardQueries(dashboard: DashboardJson): DashboardQuery[] {
  const queries: DashboardQuery[] = [];
  let row = '';
  for (const panel of dashboard.panels as DashboardJson[]) {
    if (panel.type === 'row') {
      row = panel.title;
      continue;
    }
    for (const target of (panel.targets ?? []) as DashboardJson[]) {
      queries.push({ row, panel: panel.title, type: panel.type, legend: target.legendFormat, expr: target.expr });
    }
  }
  return queries;
}

/**
 * `expr` as Grafana would send it to Prometheus: its range variables as given, each of the dashboard's own variables as
 * its "All" value (a label variable) or its default (a text box). Throws if a variable is left.
 */
export function substituted(expr: string, dashboard: DashboardJson, ranges: { rateInterval: string; range: string }): string {
  let result = expr.replaceAll('$__rate_interval', ranges.rateInterval).replaceAll('$__range', ranges.range);
  for (const variable of dashboard.templating.list as DashboardJson[]) {
    if (variable.type === 'datasource') continue;
    const value = variable.type === 'textbox' ? variable.query : variable.allValue;
    result = result.replaceAll(`$${variable.name}`, value);
  }
  if (result.includes('$')) throw new Error(`A variable is left in ${result}`);
  return result;
}
