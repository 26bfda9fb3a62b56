import { SignJWT } from 'jose';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, Refusal } from '../../src/gateway/config/kinds.js';
import { HEALTH_PATH, READY_PATH } from '../../src/gateway/paths.js';
import { SHUTDOWN_GRACE_MS } from '../../src/gateway/server.js';
import { searchesFor, startBackends, type Backends } from './support/backends.js';
import { podman, ROOT, run, searchBody, VERSION } from './support/containers.js';
import { decode, KubePlay, type Manifest } from './support/kube-play.js';
import { byKind, heapAndLimitMiB, one, parseManifests, SECRET_SETTINGS, selects, validate } from './support/manifests.js';

const KUSTOMIZATIONS = `${ROOT}deploy/kubernetes/`;
let kubectl: string;

async function render(kustomization: string): Promise<Manifest[]> {
  return parseManifests((await run(kubectl, ['kustomize', `${KUSTOMIZATIONS}${kustomization}`])).stdout);
}

/** The API keys of a GATEWAY_API_KEYS file, as `id:key` pairs, read as the gateway reads them. */
function apiKeyEntries(raw: string): [string, string][] {
  expect(apiKeys.parse(raw, 'GATEWAY_API_KEYS')).not.toBeInstanceOf(Refusal);
  return raw.split(',').map((entry) => entry.trim().split(':') as [string, string]);
}

describe('the Kubernetes manifests (deploy/kubernetes)', () => {
  beforeAll(async () => {
    kubectl = (await run('sh', [`${ROOT}scripts/deploy/kubectl.sh`])).stdout.trim();
  });

  it.for(['base', 'example'])('%s renders, and every object is valid against the Kubernetes API schema', async (kustomization) => {
    const manifests = await render(kustomization);
    const kinds = manifests.map((manifest) => manifest.kind).sort();
    const expected = ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'PodDisruptionBudget', 'Service'];
    const example = [...expected, 'Ingress', 'NetworkPolicy', 'PrometheusRule', 'Secret', 'Service', 'ServiceMonitor'];
    expect(kinds).toEqual((kustomization === 'base' ? expected : example).sort());
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
    expect(container.readinessProbe.httpGet).toEqual({ path: READY_PATH, port: 'http' });
    expect(container.readinessProbe.periodSeconds * container.readinessProbe.failureThreshold * 1000).toBeLessThan(drainMs);
    expect(container.livenessProbe.httpGet).toEqual({ path: HEALTH_PATH, port: 'http' });
    expect(container.startupProbe.httpGet).toEqual({ path: HEALTH_PATH, port: 'http' });
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
    // The autoscaler alone sets the replicas: an apply does not reset what it chose.
    expect(deployment.spec.replicas).toBeUndefined();
    const metrics = one(manifests, 'Service', 'company-search-gateway-metrics');
    expect(selects(metrics.spec.selector, labels)).toBe(true);
    expect(metrics.spec.ports).toEqual([{ name: 'metrics', port: Number(settings.METRICS_PORT), targetPort: 'metrics' }]);
    expect(selects(one(manifests, 'ServiceMonitor').spec.selector.matchLabels, metrics.metadata.labels)).toBe(true);
  });

  it('the example is a fleet an SRE runs: three pods or more on Redis, a heap under its limit, hard spread, a slow scale-down, one proxy hop let in, TLS, several API keys', async () => {
    const manifests = await render('example');
    const deployment = one(manifests, 'Deployment');
    const pod = deployment.spec.template;
    const [container] = pod.spec.containers;
    const settings = one(manifests, 'ConfigMap').data as Record<string, string>;
    const secret = one(manifests, 'Secret');
    const values = decode(secret.data);

    // More than one pod, so Redis: its URL (with its password) is a key of the Secret, named by REDIS_URL_FILE.
    const autoscaler = one(manifests, 'HorizontalPodAutoscaler');
    expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(3);
    expect(settings.REDIS_URL_FILE).toBe('/etc/company-search/secrets/redis-url');
    expect(new URL(values['redis-url']!.trim()).password).not.toBe('');
    // Scale-down waits out a lull and takes one pod at a time; scale-up does not wait.
    expect(autoscaler.spec.behavior.scaleDown.stabilizationWindowSeconds).toBeGreaterThanOrEqual(300);
    expect(autoscaler.spec.behavior.scaleDown.policies).toEqual([{ type: 'Pods', value: 1, periodSeconds: 60 }]);
    expect(autoscaler.spec.behavior.scaleUp.stabilizationWindowSeconds).toBe(0);

    // The heap is capped below the memory limit, leaving Node's own memory room; memory is asked as much as the limit.
    const { heap, limit } = heapAndLimitMiB(settings, container);
    expect(heap / limit).toBeGreaterThanOrEqual(0.6);
    expect(heap / limit).toBeLessThanOrEqual(0.8);
    expect(container.resources.requests.memory).toBe(container.resources.limits.memory);

    // Hard spread over hosts and over zones, counted per ReplicaSet so that a rolling update spreads too.
    const spread = pod.spec.topologySpreadConstraints as Manifest[];
    expect(spread.map((constraint) => [constraint.topologyKey, constraint.whenUnsatisfiable, constraint.maxSkew])).toEqual([
      ['kubernetes.io/hostname', 'DoNotSchedule', 1],
      ['topology.kubernetes.io/zone', 'DoNotSchedule', 1],
    ]);
    for (const constraint of spread) {
      expect(selects(constraint.labelSelector.matchLabels, pod.metadata.labels)).toBe(true);
      expect(constraint.matchLabelKeys).toEqual(['pod-template-hash']);
    }

    // One proxy hop is trusted, and only the ingress controller's namespace reaches the GraphQL port, only
    // Prometheus' the metrics port. The Ingress ends TLS and sends to the Service's http port.
    expect(settings.TRUSTED_PROXY_COUNT).toBe('1');
    const [gatewayPolicy, redisPolicy] = [
      one(manifests, 'NetworkPolicy', 'company-search-gateway'),
      one(manifests, 'NetworkPolicy', 'redis'),
    ];
    expect(selects(gatewayPolicy.spec.podSelector.matchLabels, pod.metadata.labels)).toBe(true);
    expect(gatewayPolicy.spec.policyTypes).toEqual(['Ingress']);
    expect(gatewayPolicy.spec.ingress).toEqual([
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }], ports: [{ port: 'http' }] },
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 'metrics' }] },
    ]);
    const ingress = one(manifests, 'Ingress');
    expect(ingress.spec.tls).toEqual([{ hosts: [ingress.spec.rules[0].host], secretName: expect.any(String) }]);
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'company-search-gateway', port: { name: 'http' } });

    // Redis private: the gateways (and Redis' own pods) only; the policy does not select the gateways themselves.
    expect(selects(redisPolicy.spec.podSelector.matchLabels, pod.metadata.labels)).toBe(false);
    expect(redisPolicy.spec.ingress[0].from.map((peer: Manifest) => peer.podSelector.matchLabels)).toEqual([
      { 'app.kubernetes.io/name': 'company-search-gateway' },
      { 'app.kubernetes.io/name': 'redis' },
    ]);
    expect(byKind(manifests, 'NetworkPolicy')).toHaveLength(2);

    // An API key file with several clients, one per line, each line ending with the comma that separates entries.
    const keys = apiKeyEntries(values['gateway-api-keys']!);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(values['gateway-api-keys']!.trim().split('\n')).toHaveLength(keys.length);
  });

  describe('run with podman kube play', () => {
    const name = `csg-kube-test-${process.pid}`;
    const play = new KubePlay();
    let backends: Backends | undefined;

    afterAll(async () => {
      await play.stop();
      await backends?.stop();
    });

    it('runs three pods of the example as rendered, sharing one Redis: one token and one upstream search per distinct search for the fleet; non-root, read-only, the Secret as files; drains on stop', async () => {
      const manifests = await render('example');
      const configMap = structuredClone(one(manifests, 'ConfigMap'));
      const secret = one(manifests, 'Secret');
      const settings = configMap.data as Record<string, string>;
      const values = decode(secret.data);
      const redisUrl = new URL(values['redis-url']!.trim());
      backends = await startBackends(name, {
        redisPassword: decodeURIComponent(redisUrl.password),
        clientId: settings.UPSTREAM_CLIENT_ID!,
        clientSecret: values['upstream-client-secret']!.trim(),
      });
      // What differs from a cluster: the addresses of Redis and of the upstream.
      redisUrl.hostname = backends.redisHost;
      settings.UPSTREAM_URL = `http://${backends.lookupHost}:4010`;
      const network = backends.network;
      const pods = await Promise.all(
        [0, 1, 2].map((index) =>
          play.play(
            `${name}-${index}`,
            { configMap, deployment: one(manifests, 'Deployment'), secret },
            { network, secretValues: (decoded) => ({ ...decoded, 'redis-url': `${redisUrl.href}\n` }) },
          ),
        ),
      );
      for (const pod of pods) expect(pod.ready.version).toBe(VERSION);

      const search = async (base: string, q: string, headers: Record<string, string>) => {
        const response = await request(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: searchBody(q),
        });
        const answer = (await response.body.json()) as { data?: { searchCompanies: { totalCount: number } }; errors?: unknown };
        return {
          status: response.statusCode,
          totalCount: answer.errors === undefined ? answer.data?.searchCompanies.totalCount : undefined,
        };
      };
      // Each pod asked the same search, new to the fleet, with another client's key: one upstream call in all.
      const keys = apiKeyEntries(values['gateway-api-keys']!);
      const q = `kube fleet ${process.pid}`;
      for (const [index, pod] of pods.entries()) {
        expect((await request(`${pod.base}${READY_PATH}`)).statusCode).toBe(200);
        expect(await search(pod.base, q, { 'x-api-key': keys[index % keys.length]![1] })).toEqual({
          status: 200,
          totalCount: expect.any(Number),
        });
      }
      const counters = await backends.counters();
      expect(searchesFor(counters, q)).toHaveLength(1);
      expect(counters.tokenRequests).toBe(1);

      // Clients are let in by the API keys and the JWT secret the gateway read from the Secret's files, and only by them.
      const [first] = pods as [(typeof pods)[0]];
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('kube-test')
        .setIssuer(settings.JWT_ISSUER!)
        .setAudience(settings.JWT_AUDIENCE!)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(values['jwt-secret']!.trim()));
      expect(await search(first.base, 'acme', { authorization: `Bearer ${token}` })).toEqual({
        status: 200,
        totalCount: expect.any(Number),
      });
      expect((await search(first.base, 'acme', {})).status).toBe(401);
      expect((await search(first.base, 'acme', { 'x-api-key': keys[0]![1].replace(/.$/, '_') })).status).toBe(401);
      const metrics = await request(`${first.metrics}/metrics`);
      expect(metrics.statusCode).toBe(200);
      const exposition = await metrics.body.text();
      expect(exposition).toMatch(/^csg_http_requests_total\{outcome="graphql"\} [1-9]/m);
      expect(exposition).toMatch(/^csg_redis_sharing 1$/m);

      const status = await podman('exec', first.gateway, 'cat', `/proc/${first.ready.pid as number}/status`);
      expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
      expect(status).toMatch(/^CapEff:\s+0000000000000000$/m);
      expect(await podman('inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', first.gateway)).toBe('true');
      expect((await podman('exec', first.gateway, 'ls', '/etc/company-search/secrets')).split('\n').sort()).toEqual(
        Object.keys(secret.data).sort(),
      );
      const written = await run('podman', ['exec', first.gateway, 'touch', '/app/written'], { allowFailure: true });
      expect(written.stderr).toMatch(/Read-only file system/);
      // No secret in the environment nor in the log.
      const environment = await podman('exec', first.gateway, 'cat', `/proc/${first.ready.pid as number}/environ`);
      const log = (await run('podman', ['logs', first.gateway])).stdout;
      for (const value of Object.values(first.secretValues)) {
        expect(environment).not.toContain(value.trim());
        expect(log).not.toContain(value.trim());
      }

      // As a pod's deletion: SIGTERM, and SIGKILL only after the grace period.
      // As a pod's deletion: it drains for its delay and exits 0 within the grace period.
      const grace = one(manifests, 'Deployment').spec.template.spec.terminationGracePeriodSeconds;
      expect(await play.delete(first, grace)).toEqual({
        exitCode: '0',
        drainDelayMs: Number(settings.SHUTDOWN_DRAIN_DELAY_MS),
        last: 'Stopped',
      });
    });
  });
});
