import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { freePort, IMAGE, logLines, podman, run, waitFor } from './containers.js';

// biome-ignore lint/suspicious/noExplicitAny: objects as rendered (kustomize or helm), checked against the API schema elsewhere
export type Manifest = Record<string, any>;

export interface PlayedPod {
  /** The pod's and its gateway container's names, as podman gives them. */
  readonly pod: string;
  readonly gateway: string;
  /** Where its GraphQL and metrics ports are published on loopback. */
  readonly base: string;
  readonly metrics: string;
  /** The gateway's ready line. */
  readonly ready: Record<string, unknown>;
  /** The Secret's values as the pod's files hold them. */
  readonly secretValues: Record<string, string>;
}

export const decode = (data: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value.replace(/\s/g, ''), 'base64').toString()]));

/**
 * Runs rendered manifests' Deployment as one pod with `podman kube play`, as rendered but for what differs from a
 * cluster: this test's image and names, its ports published on loopback (there is no Service), the Secret's values
 * changed by `secretValues` (addresses of the test's Redis and upstream), and the podman `network` it joins. Each call
 * plays one pod (podman runs one per Deployment); `stop()` removes every pod, Secret and file it made.
 */
export class KubePlay {
  readonly #dir = mkdtempSync(join(tmpdir(), 'csg-kube-play-'));
  readonly #played: { file: string; pod: string; secret: string }[] = [];

  async play(
    name: string,
    manifests: { configMap: Manifest; deployment: Manifest; secret: Manifest },
    options: { network?: string; secretValues?: (values: Record<string, string>) => Record<string, string> } = {},
  ): Promise<PlayedPod> {
    const deployment = structuredClone(manifests.deployment);
    const http = await freePort();
    const metricsPort = await freePort();
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
    const decoded = decode(manifests.secret.data);
    const secretValues = options.secretValues?.(decoded) ?? decoded;
    const secretFile = join(this.#dir, `${name}-secret.yaml`);
    writeFileSync(secretFile, dump({ ...manifests.secret, metadata: { ...manifests.secret.metadata, name }, data: secretValues }));
    const file = join(this.#dir, `${name}.yaml`);
    const pod = `${name}-pod-0`;
    this.#played.push({ file, pod, secret: name });
    await podman('secret', 'create', name, secretFile);
    writeFileSync(file, [manifests.configMap, deployment].map((manifest) => dump(manifest)).join('---\n'));
    await podman('kube', 'play', ...(options.network ? ['--network', options.network] : []), file);
    const gateway = `${pod}-gateway`;
    const ready = await waitFor('the ready line', async () =>
      (await logLines(gateway)).find((line) => String(line.msg).startsWith('Gateway ready')),
    );
    return { pod, gateway, base: `http://127.0.0.1:${http}`, metrics: `http://127.0.0.1:${metricsPort}`, ready, secretValues };
  }

  /**
   * Stops a pod as its deletion does (SIGTERM, then SIGKILL only after `graceSeconds`) and tells how the gateway left:
   * its exit code, the delay it drained for and its last log line.
   */
  async delete(pod: PlayedPod, graceSeconds: number): Promise<{ exitCode: string; drainDelayMs: unknown; last: unknown }> {
    await podman('pod', 'stop', '-t', String(graceSeconds), pod.pod);
    const lines = await logLines(pod.gateway);
    return {
      exitCode: await podman('inspect', '--format', '{{.State.ExitCode}}', pod.gateway),
      drainDelayMs: lines.find((line) => line.msg === 'Draining: /ready answers 503')?.drainDelayMs,
      last: lines.at(-1)?.msg,
    };
  }

  async stop(): Promise<void> {
    for (const { file, pod, secret } of this.#played) {
      await run('podman', ['kube', 'down', file], { allowFailure: true });
      await run('podman', ['pod', 'rm', '-f', '-t', '0', pod], { allowFailure: true });
      await run('podman', ['secret', 'rm', secret], { allowFailure: true });
      // podman 4.3 keeps a Secret's files in a volume named after it, which `kube down` leaves.
      await run('podman', ['volume', 'rm', '-f', secret], { allowFailure: true });
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
