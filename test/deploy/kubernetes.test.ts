import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { SignJWT } from 'jose';
import { dump, loadAll } from 'js-yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Setting } from '../../src/gateway/config/kinds.js';
import { SETTING_GROUPS } from '../../src/gateway/config/settings.js';
import { SHUTDOWN_GRACE_MS } from '../../src/gateway/server.js';
import { freePort, IMAGE, logLines, podman, ROOT, run, searchBody, VERSION, waitFor } from './support/containers.js';

// biome-ignore lint/suspicious/noExplicitAny: objects as rendered, checked against the API schema below
type Manifest = Record<string, any>;

/** The API schema of each kind the manifests hold, as kubernetes-models has it (validate() throws on a violation). */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

const KUSTOMIZATIONS = `${ROOT}deploy/kubernetes/`;
/** The variables of the settings the gateway holds secret (each may be given as NAME_FILE instead). */
const SECRET_SETTINGS = new Set(
  SETTING_GROUPS.flatMap((group) => Object.values(group.settings) as Setting<unknown>[])
    .filter((declared) => declared.secret)
    .map((declared) => declared.env),
);
let kubectl: string;

async function render(kustomization: string): Promise<Manifest[]> {
  const { stdout } = await run(kubectl, ['kustomize', `${KUSTOMIZATIONS}${kustomization}`]);
  return loadAll(stdout) as Manifest[];
}

function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (Model === undefined) throw new Error(`No schema for ${manifest.apiVersion} ${manifest.kind}`);
  // kustomize breaks a long base64 value into lines, which Kubernetes' decoder skips and the schema's "byte" format does not.
  const data = manifest.kind === 'Secret' ? { data: mapValues(manifest.data, (value) => value.replace(/\s/g, '')) } : {};
  new Model({ ...manifest, ...data } as never).validate();
}

function mapValues(object: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
}

const byKind = (manifests: Manifest[], kind: string) => manifests.filter((manifest) => manifest.kind === kind);
const one = (manifests: Manifest[], kind: string, name?: string) => {
  const found = byKind(manifests, kind).filter((manifest) => name === undefined || manifest.metadata.name === name);
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
};
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);

describe('the Kubernetes manifests (deploy/kubernetes)', () => {
  beforeAll(async () => {
    kubectl = (await run('sh', [`${ROOT}scripts/deploy/kubectl.sh`])).stdout.trim();
  });

  it.for(['base', 'example'])('%s renders, and every object is valid against the Kubernetes API schema', async (kustomization) => {
    const manifests = await render(kustomization);
    const kinds = manifests.map((manifest) => manifest.kind).sort();
    const expected = ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service'];
    expect(kinds).toEqual(
      kustomization === 'base' ? expected : [...expected, 'PrometheusRule', 'Secret', 'Service', 'ServiceMonitor'].sort(),
    );
    for (const manifest of manifests) validate(manifest);
    // The schema check is real: a probe period written as a string is refused.
    const deployment = structuredClone(one(manifests, 'Deployment'));
    deployment.spec.template.spec.containers[0].readinessProbe.periodSeconds = '2';
    expect(() => validate(deployment)).toThrow(/periodSeconds must be integer/);
  });

  it('drain, probes, ports and security agree with the gateway and with one another', async () => {
    const manifests = await render('example');
    const deployment = one(manifests, 'Deployment');
    const pod = deployment.spec.template;
    const [container] = pod.spec.containers;
    const settings = one(manifests, 'ConfigMap').data as Record<string, string>;
    expect(container.envFrom).toEqual([{ configMapRef: { name: one(manifests, 'ConfigMap').metadata.name } }]);

    // SIGTERM: /ready answers 503 for SHUTDOWN_DRAIN_DELAY_MS, then the requests in flight have SHUTDOWN_GRACE_MS;
    // the pod is killed only after both, with a margin. The readiness probe sees the 503 well within the delay.
    const drainMs = Number(settings.SHUTDOWN_DRAIN_DELAY_MS);
    expect(drainMs).toBeGreaterThan(0);
    expect(pod.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(drainMs + SHUTDOWN_GRACE_MS + 5_000);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(container.readinessProbe.periodSeconds * container.readinessProbe.failureThreshold * 1000).toBeLessThan(drainMs);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.lifecycle?.preStop).toBeUndefined();

    const ports = Object.fromEntries(container.ports.map((port: Manifest) => [port.name, port.containerPort]));
    expect(ports).toEqual({ http: Number(settings.PORT), metrics: Number(settings.METRICS_PORT) });
    expect(settings.METRICS_HOST).toBe('0.0.0.0');
    expect(pod.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': settings.METRICS_PORT,
      'prometheus.io/path': '/metrics',
    });

    expect(pod.spec.securityContext).toEqual(expect.objectContaining({ runAsNonRoot: true, runAsUser: 1000 }));
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    expect(container.resources.limits).toEqual(expect.objectContaining({ memory: expect.any(String) }));
    const mounts = Object.fromEntries(container.volumeMounts.map((mount: Manifest) => [mount.name, mount.mountPath]));
    expect(mounts).toEqual({ tmp: '/tmp', secrets: '/etc/company-search/secrets' });
    const secret = one(manifests, 'Secret');
    expect(pod.spec.volumes.find((volume: Manifest) => volume.name === 'secrets').secret.secretName).toBe(secret.metadata.name);
    // The secrets are files of the Secret, each named by the ConfigMap's NAME_FILE for a setting the gateway declares
    // secret, and every key of the Secret is named so; no secret is in the environment nor in the ConfigMap.
    expect(container.env).toBeUndefined();
    const files = Object.entries(settings).filter(([name]) => name.endsWith('_FILE'));
    expect(files.map(([name]) => name.replace(/_FILE$/, '')).filter((name) => !SECRET_SETTINGS.has(name))).toEqual([]);
    expect(files.map(([, path]) => path).sort()).toEqual(
      Object.keys(secret.data)
        .map((key) => `/etc/company-search/secrets/${key}`)
        .sort(),
    );
    expect(Object.keys(settings).filter((name) => SECRET_SETTINGS.has(name))).toEqual([]);

    // The Service, the budget, the autoscaler and the ServiceMonitor all reach these pods.
    const labels = pod.metadata.labels as Record<string, string>;
    const service = one(manifests, 'Service', 'company-search-gateway');
    expect(selects(service.spec.selector, labels)).toBe(true);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }]);
    expect(selects(one(manifests, 'PodDisruptionBudget').spec.selector.matchLabels, labels)).toBe(true);
    expect(selects(deployment.spec.selector.matchLabels, labels)).toBe(true);
    const autoscaler = one(manifests, 'HorizontalPodAutoscaler');
    expect(autoscaler.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(deployment.spec.replicas).toBeUndefined();
    const metrics = one(manifests, 'Service', 'company-search-gateway-metrics');
    expect(selects(metrics.spec.selector, labels)).toBe(true);
    expect(metrics.spec.ports).toEqual([{ name: 'metrics', port: Number(settings.METRICS_PORT), targetPort: 'metrics' }]);
    expect(selects(one(manifests, 'ServiceMonitor').spec.selector.matchLabels, metrics.metadata.labels)).toBe(true);
  });

  describe('run with podman kube play', () => {
    const name = `csg-kube-test-${process.pid}`;
    const dir = mkdtempSync(join(tmpdir(), 'csg-kube-test-'));
    const file = join(dir, 'deployment.yaml');
    const pod = `${name}-pod-0`;
    const gateway = `${pod}-gateway`;

    afterAll(async () => {
      await run('podman', ['kube', 'down', file], { allowFailure: true });
      await run('podman', ['pod', 'rm', '-f', '-t', '0', pod], { allowFailure: true });
      await run('podman', ['secret', 'rm', name], { allowFailure: true });
      rmSync(dir, { recursive: true, force: true });
    });

    it('runs the example as rendered: non-root, read-only, the Secret as files; answers a search and metrics; drains on stop', async () => {
      const manifests = await render('example');
      const deployment = one(manifests, 'Deployment');
      const secret = one(manifests, 'Secret');
      const settings = one(manifests, 'ConfigMap').data as Record<string, string>;
      const http = await freePort();
      const metricsPort = await freePort();
      // What differs from a cluster: this test's image and names, and the ports published on loopback (no Service here).
      deployment.metadata.name = name;
      const spec = deployment.spec.template.spec;
      spec.containers[0].image = IMAGE;
      spec.containers[0].ports = spec.containers[0].ports.map((port: Manifest) => ({
        ...port,
        hostIP: '127.0.0.1',
        hostPort: port.name === 'http' ? http : metricsPort,
      }));
      spec.volumes.find((volume: Manifest) => volume.name === 'secrets').secret.secretName = name;
      // podman 4.3's kube play reads a Secret from its own store, not from the file, and writes each value of `data` to
      // its file as it is, without decoding it (nor any of `stringData`): it is given the decoded values.
      const values = mapValues(secret.data, (value) => Buffer.from(value, 'base64').toString());
      writeFileSync(join(dir, 'secret.yaml'), dump({ ...secret, metadata: { ...secret.metadata, name }, data: values }));
      await podman('secret', 'create', name, join(dir, 'secret.yaml'));
      writeFileSync(file, [one(manifests, 'ConfigMap'), deployment].map((manifest) => dump(manifest)).join('---\n'));
      await podman('kube', 'play', file);

      const ready = await waitFor('the ready line', async () =>
        (await logLines(gateway)).find((line) => String(line.msg).startsWith('Gateway ready')),
      );
      expect(ready.version).toBe(VERSION);
      const base = `http://127.0.0.1:${http}`;
      expect((await request(`${base}/ready`)).statusCode).toBe(200);
      // Clients are let in by the API key and the JWT secret the gateway read from the Secret's files, and only by them.
      const search = async (headers: Record<string, string>) => {
        const response = await request(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: searchBody('acme'),
        });
        const answer = (await response.body.json()) as { data?: { searchCompanies: { totalCount: number } }; errors?: unknown };
        return {
          status: response.statusCode,
          totalCount: answer.errors === undefined ? answer.data?.searchCompanies.totalCount : undefined,
        };
      };
      const [, apiKey] = values['gateway-api-keys']!.trim().split(':') as [string, string];
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('kube-test')
        .setIssuer(settings.JWT_ISSUER!)
        .setAudience(settings.JWT_AUDIENCE!)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(values['jwt-secret']!.trim()));
      expect(await search({ 'x-api-key': apiKey })).toEqual({ status: 200, totalCount: expect.any(Number) });
      expect(await search({ authorization: `Bearer ${token}` })).toEqual({ status: 200, totalCount: expect.any(Number) });
      expect((await search({})).status).toBe(401);
      expect((await search({ 'x-api-key': apiKey.replace(/.$/, '_') })).status).toBe(401);
      const metrics = await request(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.statusCode).toBe(200);
      expect(await metrics.body.text()).toMatch(/^csg_http_requests_total\{outcome="graphql"\} [1-9]/m);

      const status = await podman('exec', gateway, 'cat', `/proc/${ready.pid as number}/status`);
      expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
      expect(status).toMatch(/^CapEff:\s+0000000000000000$/m);
      expect(await podman('inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', gateway)).toBe('true');
      expect((await podman('exec', gateway, 'ls', '/etc/company-search/secrets')).split('\n').sort()).toEqual(
        Object.keys(secret.data).sort(),
      );
      const written = await run('podman', ['exec', gateway, 'touch', '/app/written'], { allowFailure: true });
      expect(written.stderr).toMatch(/Read-only file system/);

      // As a pod's deletion: SIGTERM, and SIGKILL only after the grace period.
      await podman('pod', 'stop', '-t', String(spec.terminationGracePeriodSeconds), pod);
      expect(await podman('inspect', '--format', '{{.State.ExitCode}}', gateway)).toBe('0');
      const lines = await logLines(gateway);
      expect(lines.find((line) => line.msg === 'Draining: /ready answers 503')).toEqual(expect.objectContaining({ drainDelayMs: 5000 }));
      expect(lines.at(-1)?.msg).toBe('Stopped');
    });
  });
});
