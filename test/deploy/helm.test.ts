import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_MADE_SETTINGS, valuesSchema } from '../../scripts/deploy/helm-values-schema.js';
import { HEALTH_PATH, READY_PATH } from '../../src/gateway/paths.js';
import { SHUTDOWN_GRACE_MS } from '../../src/gateway/server.js';
import { searchesFor, startBackends, type Backends } from './support/backends.js';
import { podman, ROOT, run, searchBody, VERSION } from './support/containers.js';
import { KubePlay, type Manifest } from './support/kube-play.js';
import { byKind, heapAndLimitMiB, one, parseManifests, SECRET_SETTINGS, selects, validate } from './support/manifests.js';

const CHART = `${ROOT}deploy/helm/company-search-gateway`;
/** An example of each option (the chart's ci/ folder, as chart-testing reads it). */
const EXAMPLES = readdirSync(`${CHART}/ci`).sort();
/** The release name that gives the objects the kustomize base's names. */
const RELEASE = 'company-search-gateway';
let helm: string;
let kubectl: string;

async function template(...args: string[]): Promise<Manifest[]> {
  return parseManifests((await run(helm, ['template', RELEASE, CHART, ...args])).stdout);
}
const example = (name: string) => template('-f', `${CHART}/ci/${name}`);

/** Labels only Helm gives (the release, the chart and its version), which select nothing the base's do not. */
const HELM_LABELS = ['app.kubernetes.io/instance', 'app.kubernetes.io/version', 'app.kubernetes.io/managed-by', 'helm.sh/chart'];

/**
 * A rendering with what is allowed to differ between kustomize and Helm taken out, so that the two compare equal:
 * Helm's own labels wherever they are (objects, selectors, spread constraints); the ConfigMap's name, which kustomize
 * suffixes with a hash of its content where Helm puts a checksum of it on the pod template (either rolls the pods
 * when a setting changes).
 */
function comparable(manifests: Manifest[]): Record<string, Manifest> {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !HELM_LABELS.includes(key) && key !== 'checksum/settings')
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  const configMapName = /^(company-search-gateway)-[a-z0-9]{10}$/;
  return Object.fromEntries(
    manifests.map((manifest) => {
      const copy = strip(manifest) as Manifest;
      if (copy.kind === 'ConfigMap') copy.metadata.name = copy.metadata.name.replace(configMapName, '$1');
      for (const source of copy.spec?.template?.spec?.containers?.[0]?.envFrom ?? []) {
        source.configMapRef.name = source.configMapRef.name.replace(configMapName, '$1');
      }
      return [`${copy.kind}/${copy.metadata.name}`, copy];
    }),
  );
}

describe('the Helm chart (deploy/helm/company-search-gateway)', () => {
  beforeAll(async () => {
    helm = (await run('sh', [`${ROOT}scripts/deploy/helm.sh`])).stdout.trim();
    kubectl = (await run('sh', [`${ROOT}scripts/deploy/kubectl.sh`])).stdout.trim();
  });

  it('lints with its default values and with each example; its schema refuses a misspelt value, a secret among the settings and a setting the chart makes', async () => {
    for (const values of [[], ...EXAMPLES.map((name) => ['-f', `${CHART}/ci/${name}`])]) {
      const { stdout } = await run(helm, ['lint', '--strict', CHART, ...values]);
      expect(stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
    const refused = async (...set: string[]) =>
      (await run(helm, ['lint', CHART, ...set.flatMap((value) => ['--set', value])], { allowFailure: true })).stdout;
    expect(await refused('replicaz=3')).toMatch(/additional properties 'replicaz' not allowed/);
    expect(await refused('settings.UPSTREAM_CLIENT_SECRET=x')).toMatch(/invalid propertyName 'UPSTREAM_CLIENT_SECRET'/);
    expect(await refused('settings.PORT=8080')).toMatch(/invalid propertyName 'PORT'/);
    expect(await refused('secret.files.REDIS_URL=redis-url')).toMatch(/invalid propertyName 'REDIS_URL'/);
    expect(await refused('topologySpread.zones=Sometimes')).toMatch(/topologySpread\/zones/);
    expect(await refused('redis.sentinelPassword.key=sentinel-password')).toMatch(/redis\/url\/key/);
  });

  it('its schema is current: made from the settings the gateway declares (npm run docs:config)', () => {
    expect(JSON.parse(readFileSync(`${CHART}/values.schema.json`, 'utf8'))).toEqual(JSON.parse(JSON.stringify(valuesSchema())));
    const values = load(readFileSync(`${CHART}/values.yaml`, 'utf8')) as { settings: Record<string, unknown> };
    for (const name of Object.keys(values.settings)) {
      expect(SECRET_SETTINGS.has(name)).toBe(false);
      expect(CHART_MADE_SETTINGS as readonly string[]).not.toContain(name);
    }
  });

  it.for(['values.yaml', ...EXAMPLES])('renders with %s, every object valid against the Kubernetes API schema', async (name) => {
    const manifests = name === 'values.yaml' ? await template() : await example(name);
    for (const manifest of manifests) validate(manifest);
    // No object the chart renders holds a secret: the Secret is the operator's.
    expect(byKind(manifests, 'Secret')).toEqual([]);
  });

  it('renders by default what the kustomize base renders, but for Helm’s labels and how a changed setting rolls the pods', async () => {
    const helmObjects = comparable(await template());
    const kustomizeObjects = comparable(parseManifests((await run(kubectl, ['kustomize', `${ROOT}deploy/kubernetes/base`])).stdout));
    expect(Object.keys(helmObjects).sort()).toEqual(Object.keys(kustomizeObjects).sort());
    for (const [key, object] of Object.entries(kustomizeObjects)) expect(helmObjects[key], key).toEqual(object);
    // And the differences are as stated: each pod carries a checksum of its settings, and the release's label, which
    // the Deployment, the Service and the budget select by, so that two releases in one namespace stay apart.
    const manifests = await template();
    const deployment = one(manifests, 'Deployment');
    const settings = one(manifests, 'ConfigMap').data as Record<string, string>;
    expect(deployment.spec.template.metadata.annotations['checksum/settings']).toMatch(/^[0-9a-f]{64}$/);
    for (const selector of [
      deployment.spec.selector.matchLabels,
      one(manifests, 'Service').spec.selector,
      one(manifests, 'PodDisruptionBudget').spec.selector.matchLabels,
    ]) {
      expect(selector['app.kubernetes.io/instance']).toBe(RELEASE);
    }
    // The settings that the pod spec depends on agree with it, as the base's do (test/deploy/kubernetes.test.ts).
    const [container] = deployment.spec.template.spec.containers;
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(
      Number(settings.SHUTDOWN_DRAIN_DELAY_MS) + SHUTDOWN_GRACE_MS + 5_000,
    );
    expect(container.readinessProbe.httpGet).toEqual({ path: READY_PATH, port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: HEALTH_PATH, port: 'http' });
  });

  it('derives the ports, drain, heap, replicas, budget and spread from its values, the pod spec and the settings together', async () => {
    const manifests = await example('fixed-replicas.yaml');
    const deployment = one(manifests, 'Deployment');
    const pod = deployment.spec.template;
    const [container] = pod.spec.containers;
    const settings = one(manifests, 'ConfigMap').data as Record<string, string>;
    expect(deployment.spec.replicas).toBe(4);
    expect(byKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(one(manifests, 'PodDisruptionBudget').spec).toEqual(expect.objectContaining({ minAvailable: 3 }));
    expect(one(manifests, 'PodDisruptionBudget').spec.maxUnavailable).toBeUndefined();
    expect(byKind(manifests, 'NetworkPolicy')).toEqual([]);
    expect(
      pod.spec.topologySpreadConstraints.map((constraint: Manifest) => [constraint.topologyKey, constraint.whenUnsatisfiable]),
    ).toEqual([['kubernetes.io/hostname', 'ScheduleAnyway']]);
    const ports = Object.fromEntries(container.ports.map((port: Manifest) => [port.name, port.containerPort]));
    expect(ports).toEqual({ http: 8080, metrics: 9100 });
    expect([settings.PORT, settings.METRICS_PORT, pod.metadata.annotations['prometheus.io/port']]).toEqual(['8080', '9100', '9100']);
    expect(settings.SHUTDOWN_DRAIN_DELAY_MS).toBe('8000');
    expect(pod.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(8_000 + SHUTDOWN_GRACE_MS + 5_000);
    expect(heapAndLimitMiB(settings, container)).toEqual({ heap: 768, limit: 1024 });
    // A changed setting changes the pods' checksum, which rolls them.
    const checksum = (await template()).find((manifest) => manifest.kind === 'Deployment')!.spec.template.metadata.annotations[
      'checksum/settings'
    ];
    expect(pod.metadata.annotations['checksum/settings']).not.toBe(checksum);
  });

  it('names Redis and every secret by a file of a Secret, never in the environment or a ConfigMap, another Secret mounted apart', async () => {
    for (const name of ['redis.yaml', 'redis-sentinel.yaml']) {
      const manifests = await example(name);
      const settings = one(manifests, 'ConfigMap').data as Record<string, string>;
      const pod = one(manifests, 'Deployment').spec.template.spec;
      const [container] = pod.containers;
      const files = Object.entries(settings).filter(([variable]) => variable.endsWith('_FILE'));
      // Each names a secret the gateway declares (the sentinels' password too, once the gateway declares it).
      expect(Object.keys(settings).filter((variable) => SECRET_SETTINGS.has(variable))).toEqual([]);
      const mounts = Object.fromEntries(container.volumeMounts.map((mount: Manifest) => [mount.mountPath, mount.name]));
      // Every file is in a mounted volume, and is a key that volume's Secret gives.
      for (const [, path] of files) {
        const folder = path.slice(0, path.lastIndexOf('/'));
        const volume = pod.volumes.find((candidate: Manifest) => candidate.name === mounts[folder]);
        expect(volume, path).toBeDefined();
        const key = path.slice(folder.length + 1);
        if (volume.secret) expect(volume.secret.secretName).toBe('company-search-gateway');
        else
          expect(volume.projected.sources.flatMap((source: Manifest) => source.secret.items.map((item: Manifest) => item.path))).toContain(
            key,
          );
      }
      if (name === 'redis.yaml') {
        expect(Object.fromEntries(files)).toEqual({
          UPSTREAM_CLIENT_SECRET_FILE: '/etc/company-search/secrets/upstream-client-secret',
          GATEWAY_API_KEYS_FILE: '/etc/company-search/secrets/gateway-api-keys',
          REDIS_URL_FILE: '/etc/company-search/secrets/redis-url',
        });
        expect(files.map(([variable]) => variable.replace(/_FILE$/, '')).filter((variable) => !SECRET_SETTINGS.has(variable))).toEqual([]);
      } else {
        expect(Object.fromEntries(files)).toEqual({
          REDIS_URL_FILE: '/etc/company-search/redis/gateway-url',
          REDIS_SENTINEL_PASSWORD_FILE: '/etc/company-search/redis/sentinel-password',
        });
        const projected = pod.volumes.find((volume: Manifest) => volume.name === 'redis-secrets').projected.sources;
        expect(projected.map((source: Manifest) => source.secret.name)).toEqual(['redis-credentials', 'redis-credentials']);
      }
      expect(container.env).toBeUndefined();
    }
  });

  it('adds a ServiceMonitor, the alert rules of deploy/prometheus/ and the dashboard of deploy/grafana/ for Grafana’s sidecar', async () => {
    const manifests = await example('monitoring.yaml');
    const pod = one(manifests, 'Deployment').spec.template;
    const metrics = one(manifests, 'Service', `${RELEASE}-metrics`);
    expect(metrics.spec.clusterIP).toBe('None');
    expect(selects(metrics.spec.selector, pod.metadata.labels)).toBe(true);
    const monitor = one(manifests, 'ServiceMonitor');
    expect(selects(monitor.spec.selector.matchLabels, metrics.metadata.labels)).toBe(true);
    expect(selects(monitor.spec.selector.matchLabels, one(manifests, 'Service', RELEASE).metadata.labels)).toBe(false);
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s' }]);
    expect(monitor.metadata.labels.release).toBe('kube-prometheus-stack');
    // The job Prometheus names: the gateway's, as in the compose fleet's Prometheus that the rules are written for.
    expect(metrics.metadata.labels[monitor.spec.jobLabel]).toBe('company-search-gateway');
    // The rules and the dashboard are the files of deploy/, as they are (the chart's files/ links to them).
    const rules = load(readFileSync(`${ROOT}deploy/prometheus/alerts.yaml`, 'utf8')) as { groups: unknown[] };
    expect(one(manifests, 'PrometheusRule').spec.groups).toEqual(rules.groups);
    const dashboard = one(manifests, 'ConfigMap', `${RELEASE}-dashboard`);
    expect(dashboard.metadata).toEqual(
      expect.objectContaining({
        namespace: 'monitoring',
        annotations: { grafana_folder: 'Gateways' },
        labels: expect.objectContaining({ grafana_dashboard: '1' }),
      }),
    );
    expect(JSON.parse(dashboard.data['company-search-gateway.json'])).toEqual(
      JSON.parse(readFileSync(`${ROOT}deploy/grafana/company-search-gateway.json`, 'utf8')),
    );
  });

  it('adds extra env, env sources, volumes, init containers, placement, an Ingress and the peers a NetworkPolicy lets in', async () => {
    const manifests = await example('extras.yaml');
    const pod = one(manifests, 'Deployment').spec.template;
    const [container] = pod.spec.containers;
    expect(container.image).toBe('registry.example.com/company-search-gateway:0.2.0-rc.1');
    expect(container.imagePullPolicy).toBe('Always');
    expect(pod.spec.imagePullSecrets).toEqual([{ name: 'registry-credentials' }]);
    expect(container.env.map((variable: Manifest) => variable.name)).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT', 'POD_NAME']);
    expect(container.envFrom.map((source: Manifest) => Object.values(source)[0].name)).toEqual([RELEASE, 'company-search-tracing']);
    expect(container.volumeMounts.map((mount: Manifest) => mount.name)).toEqual(['tmp', 'secrets', 'trusted-documents']);
    expect(pod.spec.volumes.map((volume: Manifest) => volume.name)).toEqual(['tmp', 'secrets', 'trusted-documents']);
    expect(one(manifests, 'ConfigMap').data.TRUSTED_DOCUMENTS).toBe('/etc/company-search/trusted-documents/manifest.json');
    expect(pod.spec.initContainers.map((init: Manifest) => init.name)).toEqual(['wait-for-redis']);
    expect(pod.metadata.annotations['example.com/team']).toBe('search');
    expect(pod.metadata.labels['example.com/cost-centre']).toBe('search');
    expect(pod.spec).toEqual(
      expect.objectContaining({
        serviceAccountName: RELEASE,
        priorityClassName: 'high',
        nodeSelector: { 'kubernetes.io/arch': 'amd64' },
        tolerations: [expect.objectContaining({ value: 'gateways' })],
      }),
    );
    const ingress = one(manifests, 'Ingress');
    expect(ingress.metadata.annotations).toEqual({ 'cert-manager.io/cluster-issuer': 'letsencrypt' });
    expect(ingress.spec.tls).toEqual([{ hosts: ['search.example.com'], secretName: 'company-search-gateway-tls' }]);
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: RELEASE, port: { name: 'http' } });
    expect(
      one(manifests, 'NetworkPolicy').spec.ingress.map(
        (rule: Manifest) => rule.from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'],
      ),
    ).toEqual(['traefik', 'observability']);
  });

  describe('run with podman kube play', () => {
    const name = `csg-helm-test-${process.pid}`;
    const play = new KubePlay();
    let backends: Backends | undefined;

    afterAll(async () => {
      await play.stop();
      await backends?.stop();
    });

    it('runs the Redis example’s rendering with its Secret as files: it answers a search, shares through Redis, serves metrics and drains on stop', async () => {
      const manifests = await example('redis.yaml');
      const configMap = structuredClone(one(manifests, 'ConfigMap'));
      const settings = configMap.data as Record<string, string>;
      const credentials = {
        redisPassword: `helm-test-redis-${process.pid}-0123456789`,
        clientId: settings.UPSTREAM_CLIENT_ID!,
        clientSecret: `helm-test-upstream-${process.pid}`,
      };
      backends = await startBackends(name, credentials);
      // The Secret the operator makes (the chart makes none), with the addresses of the test's Redis and upstream.
      settings.UPSTREAM_URL = `http://${backends.lookupHost}:4010`;
      const apiKey = `helm-test-key-${process.pid}-0123456789abcdefghij`;
      const values = {
        'upstream-client-secret': credentials.clientSecret,
        'gateway-api-keys': `web:${apiKey}`,
        'redis-url': `redis://gateway:${credentials.redisPassword}@${backends.redisHost}:6379/0`,
      };
      const data = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'company-search-gateway' }, type: 'Opaque', data };
      const pod = await play.play(name, { configMap, deployment: one(manifests, 'Deployment'), secret }, { network: backends.network });
      expect(pod.ready.version).toBe(VERSION);

      expect((await request(`${pod.base}${READY_PATH}`)).statusCode).toBe(200);
      const q = `helm fleet ${process.pid}`;
      const response = await request(`${pod.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: searchBody(q),
      });
      expect(response.statusCode).toBe(200);
      expect(((await response.body.json()) as { errors?: unknown }).errors).toBeUndefined();
      expect(searchesFor(await backends.counters(), q)).toHaveLength(1);
      const exposition = await (await request(`${pod.metrics}/metrics`)).body.text();
      expect(exposition).toMatch(/^csg_redis_sharing 1$/m);
      expect(await podman('exec', pod.gateway, 'cat', `/proc/${pod.ready.pid as number}/status`)).toMatch(
        /^Uid:\s+1000\s+1000\s+1000\s+1000$/m,
      );

      // As a pod's deletion: it drains for its delay and exits 0 within the grace period.
      const grace = one(manifests, 'Deployment').spec.template.spec.terminationGracePeriodSeconds;
      expect(await play.delete(pod, grace)).toEqual({
        exitCode: '0',
        drainDelayMs: Number(settings.SHUTDOWN_DRAIN_DELAY_MS),
        last: 'Stopped',
      });
    });
  });
});
