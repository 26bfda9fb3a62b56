import { writeFileSync } from 'node:fs';
import { PROMETHEUS_RULE_FILE, prometheusRule } from './prometheus-rule.js';

/** `npm run monitoring:generate`: the files made from the monitoring's sources, which CI checks are current: the PrometheusRule from deploy/prometheus/alerts.yaml. */
writeFileSync(PROMETHEUS_RULE_FILE, prometheusRule());
