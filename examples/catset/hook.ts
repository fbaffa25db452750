/**
 * The catset example's hook: a CatSet is a StatefulSet written as a CompositeController. Pods are
 * named `<catset>-<ordinal>` and get a stable hostname under `spec.serviceName`; each Pod gets one
 * PersistentVolumeClaim per `spec.volumeClaimTemplates` entry, named `<template>-<catset>-<ordinal>`.
 *
 * - Scale-up is ordered: Pod `n` is asked for only once Pods `0..n-1` exist and are Ready.
 * - Scale-down is ordered: the highest ordinal beyond `spec.replicas` goes first, the next one only
 *   once it is gone.
 * - Template changes roll out through loom (`RollingRecreate` with a Ready status check in
 *   controller.yaml), one Pod at a time, in the order the Pods are listed here: highest ordinal first,
 *   as a StatefulSet does.
 * - PVCs outlive their Pods while the CatSet exists (kept when their Pod is scaled away).
 * - The finalize hook (the same function, `finalizing: true`) tears the Pods down highest ordinal
 *   first and reports `finalized` once none is left.
 *
 * The functions are pure, and the hook is asked about old revisions during a rollout, so it must stay
 * free of side effects.
 *
 * Run alone with `node examples/catset/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  childrenOf, createHookServer, desired, type CompositeRequest, type CompositeResponse, type HookServer, type HookServerOptions,
  type KubeObject, type LabelSelector,
} from 'kube-loom-sdk';

/** Labels and annotations of a template. */
interface TemplateMeta {
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A Pod template (`spec.template`), as far as the hook reads it. */
interface PodTemplate {
  metadata?: TemplateMeta;
  spec?: { volumes?: { name: string }[]; [field: string]: unknown };
}

/** One entry of `spec.volumeClaimTemplates`: a PVC without a final name. */
interface ClaimTemplate {
  metadata?: TemplateMeta;
  spec?: Record<string, unknown>;
}

/** The parent type. */
export interface CatSet extends KubeObject {
  spec?: {
    replicas?: number;
    serviceName?: string;
    selector?: LabelSelector;
    template?: PodTemplate;
    volumeClaimTemplates?: ClaimTemplate[];
  };
}

/** The child types of controller.yaml. */
export type CatSetChildren = 'Pod.v1' | 'PersistentVolumeClaim.v1';

/** A CatSet's request, for sync and finalize alike. */
export type CatSetRequest = CompositeRequest<CatSet, CatSetChildren>;

/**
 * The ordinal of a name `<prefix><n>` (`n` a decimal integer without leading zeros), or `undefined`
 * for any other name: objects not named by this hook are not part of the set.
 */
export function ordinalOf(name: string | undefined, prefix: string): number | undefined {
  if (!name?.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d{0,8})$/.test(rest) ? Number(rest) : undefined;
}

/** Running and Ready, and not on its way out: the condition a StatefulSet waits for too. */
export function isPodReady(pod: KubeObject): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const status = pod.status as { phase?: string; conditions?: { type?: string; status?: string }[] } | undefined;
  return status?.phase === 'Running' && (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The observed Pods of the set, by ordinal. */
function podsByOrdinal(request: CatSetRequest): Map<number, KubeObject> {
  const prefix = `${nameOf(request.parent)}-`;
  const pods = new Map<number, KubeObject>();
  for (const pod of childrenOf(request, 'Pod.v1')) {
    const ordinal = ordinalOf(pod.metadata.name, prefix);
    if (ordinal !== undefined) pods.set(ordinal, pod);
  }
  return pods;
}

/**
 * The ordinals of the Pods to ask for, highest first, given the observed Pods and the replica count
 * (0 while finalizing). Every observed Pod below `replicas` stays; the first missing one is added
 * only when every lower Pod is Ready; of the Pods at or above `replicas`, all but the highest stay,
 * so they go one at a time.
 */
export function desiredOrdinals(pods: ReadonlyMap<number, KubeObject>, replicas: number): number[] {
  const keep: number[] = [];
  let lowerReady = true;
  for (let ordinal = 0; ordinal < replicas; ordinal++) {
    const pod = pods.get(ordinal);
    if (pod || lowerReady) keep.push(ordinal);
    lowerReady &&= pod !== undefined && isPodReady(pod);
  }
  const condemned = [...pods.keys()].filter((ordinal) => ordinal >= replicas).sort((a, b) => b - a);
  return [...condemned.slice(1), ...keep].sort((a, b) => b - a);
}

/** The name of a claim template (its `metadata.name`; `data` when it has none). */
function claimTemplateName(template: ClaimTemplate): string {
  return template.metadata?.name ?? 'data';
}

/** The parent's name (the SDK has checked that it is a string). */
function nameOf(catset: CatSet): string {
  return catset.metadata.name ?? '';
}

function claimName(template: ClaimTemplate, catset: CatSet, ordinal: number): string {
  return `${claimTemplateName(template)}-${nameOf(catset)}-${ordinal}`;
}

/** The template's volumes with one volume per claim; a claim's replaces a template volume of its name, as in a StatefulSet. */
function volumesFor(catset: CatSet, ordinal: number): { name: string }[] {
  const claimVolumes = (catset.spec?.volumeClaimTemplates ?? []).map((claim) => ({
    name: claimTemplateName(claim),
    persistentVolumeClaim: { claimName: claimName(claim, catset, ordinal) },
  }));
  const own = catset.spec?.template?.spec?.volumes ?? [];
  return [...own.filter((v) => !claimVolumes.some((c) => c.name === v.name)), ...claimVolumes];
}

/** The Pod of `ordinal`: the template, with its identity (hostname, subdomain) and its claims' volumes. */
export function podFor(catset: CatSet, ordinal: number): KubeObject {
  const name = `${nameOf(catset)}-${ordinal}`;
  const template = catset.spec?.template ?? {};
  const volumes = volumesFor(catset, ordinal);
  const serviceName = catset.spec?.serviceName;
  return desired({
    apiVersion: 'v1', kind: 'Pod', name,
    labels: template.metadata?.labels, annotations: template.metadata?.annotations,
    spec: { ...template.spec, hostname: name, ...(serviceName ? { subdomain: serviceName } : {}), ...(volumes.length > 0 ? { volumes } : {}) },
  });
}

/**
 * The claims to keep, for every template: those of the desired Pods plus every one already observed
 * (a claim outlives its Pod, as a StatefulSet's does). They carry the Pod template's labels, so that
 * the CatSet's selector claims them too.
 */
function claimsFor(request: CatSetRequest, ordinals: readonly number[]): KubeObject[] {
  const catset = request.parent;
  const observed = childrenOf(request, 'PersistentVolumeClaim.v1').map((pvc) => pvc.metadata.name);
  const labels = catset.spec?.template?.metadata?.labels;
  return (catset.spec?.volumeClaimTemplates ?? []).flatMap((template) => {
    const prefix = `${claimTemplateName(template)}-${nameOf(catset)}-`;
    const kept = observed.map((name) => ordinalOf(name, prefix)).filter((n): n is number => n !== undefined);
    const all = [...new Set([...ordinals, ...kept])].sort((a, b) => a - b);
    return all.map((ordinal) => desired({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: claimName(template, catset, ordinal),
      labels: { ...labels, ...template.metadata?.labels }, annotations: template.metadata?.annotations,
      spec: template.spec ?? {},
    }));
  });
}

/** The answer to a sync or finalize request (v1 or v2 object keys alike). */
export function catsetSync(request: CatSetRequest): CompositeResponse {
  const pods = podsByOrdinal(request);
  const replicas = request.finalizing ? 0 : Math.max(0, request.parent.spec?.replicas ?? 1);
  const ordinals = desiredOrdinals(pods, replicas);
  const status = { replicas: pods.size, readyReplicas: [...pods.values()].filter(isPodReady).length };
  return {
    status,
    children: [...ordinals.map((ordinal) => podFor(request.parent, ordinal)), ...claimsFor(request, ordinals)],
    ...(request.finalizing ? { finalized: childrenOf(request, 'Pod.v1').length === 0 } : {}),
  };
}

/** A hook server answering `POST /sync` and `POST /finalize`; `logger` defaults to the SDK's own. */
export function catsetHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: catsetSync, finalize: catsetSync } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => catsetHook({ logger: false });

if (import.meta.main) {
  await catsetHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
