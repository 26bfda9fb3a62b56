import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { loadAll } from 'js-yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { expect } from 'vitest';
import type { Setting } from '../../../src/gateway/config/kinds.js';
import { SETTING_GROUPS } from '../../../src/gateway/config/settings.js';
import type { Manifest } from './kube-play.js';

/** The API schema of each kind the manifests hold, as kubernetes-models has it (validate() throws on a violation). */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

/** The objects of a rendering (`kubectl kustomize`, `helm template`), empty documents left out. */
export function parseManifests(yaml: string): Manifest[] {
  return (loadAll(yaml) as (Manifest | null)[]).filter((manifest): manifest is Manifest => manifest !== null);
}

export function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (Model === undefined) throw new Error(`No schema for ${manifest.apiVersion} ${manifest.kind}`);
  // kustomize breaks a long base64 value into lines, which Kubernetes' decoder skips and the schema's "byte" format does not.
  const data = manifest.kind === 'Secret' ? { data: mapValues(manifest.data, (value) => value.replace(/\s/g, '')) } : {};
  new Model({ ...manifest, ...data } as never).validate();
}

export function mapValues(object: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
}

export const byKind = (manifests: Manifest[], kind: string) => manifests.filter((manifest) => manifest.kind === kind);

/** The one object of `kind` (named `name`, where given). */
export function one(manifests: Manifest[], kind: string, name?: string): Manifest {
  const found = byKind(manifests, kind).filter((manifest) => name === undefined || manifest.metadata.name === name);
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
}

export const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The variables of the settings the gateway holds secret (each may be given as NAME_FILE instead). */
export const SECRET_SETTINGS = new Set(
  SETTING_GROUPS.flatMap((group) => Object.values(group.settings) as Setting<unknown>[])
    .filter((declared) => declared.secret)
    .map((declared) => declared.env),
);

/** `--max-old-space-size` of NODE_OPTIONS, and the container's memory limit, both in MiB. */
export function heapAndLimitMiB(settings: Record<string, string>, container: Manifest): { heap: number; limit: number } {
  const heap = Number(/--max-old-space-size=(\d+)/.exec(settings.NODE_OPTIONS ?? '')?.[1]);
  const [, amount, unit] = /^(\d+)(Mi|Gi)$/.exec(container.resources.limits.memory) ?? [];
  return { heap, limit: Number(amount) * (unit === 'Gi' ? 1024 : 1) };
}
