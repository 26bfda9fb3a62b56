import { writeFileSync } from 'node:fs';
import { DASHBOARD } from './dashboard.js';
import { dashboardJson } from './grafana.js';
import { PROMETHEUS_RULE_FILE, prometheusRule } from './prometheus-rule.js';

/**
 * `npm run monitoring:generate`: the files made from the monitoring's sources, which CI checks are current: the
 * Grafana dashboard from scripts/monitoring/dashboard.ts, and the PrometheusRule from deploy/prometheus/alerts.yaml.
 */
const DASHBOARD_FILE = new URL('../../deploy/grafana/company-search-gateway.json', import.meta.url);

writeFileSync(DASHBOARD_FILE, `${JSON.stringify(dashboardJson(DASHBOARD), null, 2)}\n`);
writeFileSync(PROMETHEUS_RULE_FILE, prometheusRule());
