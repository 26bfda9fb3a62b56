import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROMETHEUS_RULE_FILE, RULES_FILE, ruleGroups } from '../../scripts/monitoring/prometheus-rule.js';
import { SERVICE_FAILURE_CODES } from '../../src/gateway/observability/metrics.js';
import { exportedSeriesNames } from '../support/metrics.js';
import { selectorsOf } from '../support/promql.js';
import { ERROR_CODES } from '../../src/errors/codes.js';

const UNIT_TESTS = fileURLToPath(new URL('../../deploy/prometheus/alerts.test.yaml', import.meta.url));
const RUNBOOKS = new URL('../../docs/runbooks.md', import.meta.url);
/** Where runbook_url leads: docs/runbooks.md of the repository, one section per alert. */
const RUNBOOK_BASE = 'https://github.com/example/company-search-gateway/blob/main/docs/runbooks.md';
/** The parts every runbook section has, in this order. */
const RUNBOOK_PARTS = ['What it means', 'What users feel', 'What to check', 'What to do'];

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = () => (ruleGroups() as { rules: Rule[] }[]).flatMap((group) => group.rules);
const alerts = () => rules().filter((rule) => rule.alert !== undefined);

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8' });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The text of each `## ` section of docs/runbooks.md, by its heading. */
function runbookSections(): Map<string, string> {
  const sections = new Map<string, string>();
  for (const part of readFileSync(RUNBOOKS, 'utf8').split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    sections.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return sections;
}

describe('the alert rules (deploy/prometheus/alerts.yaml)', () => {
  let exported: Set<string>;
  beforeAll(async () => {
    exported = await exportedSeriesNames();
  });

  it('pass promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', fileURLToPath(RULES_FILE));
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });

  it('pass their promtool unit tests, which give every alert a case that fires it and one that does not', () => {
    const { status, output } = promtool('test', 'rules', UNIT_TESTS);
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);

    const { tests } = load(readFileSync(UNIT_TESTS, 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const cases = tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const { alert } of alerts()) {
      const of = cases.filter((one) => one.alertname === alert);
      expect(
        { alert, fires: of.some((one) => one.exp_alerts.length > 0), quiet: of.some((one) => one.exp_alerts.length === 0) },
        `${alert} needs a case that fires it and one that does not`,
      ).toEqual({ alert, fires: true, quiet: true });
    }
    expect(cases.filter((one) => !alerts().some((rule) => rule.alert === one.alertname))).toEqual([]);
  });

  it('give every alert a severity, a summary, a description and a runbook_url to its section of docs/runbooks.md', () => {
    const sections = runbookSections();
    for (const { alert, labels, annotations } of alerts()) {
      expect(['page', 'ticket'], alert).toContain(labels?.severity);
      expect(annotations?.summary, alert).toBeTruthy();
      expect(annotations?.description, alert).toBeTruthy();
      // GitHub's anchor for a heading `## GatewayCircuitOpen` is its text in lower case.
      expect(annotations?.runbook_url, alert).toBe(`${RUNBOOK_BASE}#${alert!.toLowerCase()}`);
      const section = sections.get(alert!);
      expect(section, `docs/runbooks.md has no section ## ${alert}`).toBeDefined();
      const parts = RUNBOOK_PARTS.map((part) => section!.indexOf(`**${part}.**`));
      expect(
        parts.every((at, i) => at >= 0 && (i === 0 || at > parts[i - 1]!)),
        `## ${alert} says, in order: ${RUNBOOK_PARTS.join(', ')}`,
      ).toBe(true);
    }
  });

  it('are explained in docs/runbooks.md, whose SLO section names every code the availability SLO counts as failed', () => {
    const slos = runbookSections().get('The SLOs')!;
    const list = slos.slice(slos.indexOf('These codes:'), slos.indexOf("A client's own mistakes"));
    const named = [...list.matchAll(/`([A-Z][A-Z_]+)`/g)].map(([, code]) => code!);
    expect(named.filter((code) => !(code in ERROR_CODES))).toEqual([]);
    expect(new Set(named)).toEqual(SERVICE_FAILURE_CODES);
    expect(SERVICE_FAILURE_CODES.size).toBeGreaterThan(5);
  });

  it('name only metrics a gateway exports, and recording rules of the file', () => {
    const recorded = new Set(rules().flatMap((rule) => (rule.record === undefined ? [] : [rule.record])));
    const named = new Set(rules().flatMap((rule) => selectorsOf(rule.expr).map((selector) => selector.name)));
    expect([...named].filter((name) => !exported.has(name) && !recorded.has(name))).toEqual([]);
    expect([...recorded].filter((name) => !named.has(name))).toEqual([]);
  });

  it('are the same groups in the PrometheusRule of the kustomize ServiceMonitor component', () => {
    const rule = load(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')) as { kind: string; spec: { groups: unknown[] } };
    expect(rule.kind).toBe('PrometheusRule');
    expect(rule.spec.groups).toEqual(ruleGroups());
    const component = readFileSync(new URL('kustomization.yaml', PROMETHEUS_RULE_FILE), 'utf8');
    expect(component).toMatch(/^ {2}- prometheus-rule\.yaml$/m);
  });
});
