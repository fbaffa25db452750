/**
 * The bluegreen-deployment example's sync hook: a BlueGreenDeployment runs its Pods through two
 * ReplicaSets, `<name>-blue` and `<name>-green`, and a Service that selects one colour at a time.
 * A new Pod template is rolled out on the idle colour; once that ReplicaSet has every replica ready,
 * the Service switches to it and the other colour is scaled to 0.
 *
 * The hook keeps no state of its own: everything it needs is in the observed children. Which colour
 * is live is what the Service selects; which template a ReplicaSet runs is recorded, as the parent
 * gave it, in the ReplicaSet's {@link TEMPLATE_ANNOTATION} (the API server fills in defaults in
 * `spec.template`, so the stored template cannot be compared with the parent's).
 *
 * Run alone with `node examples/bluegreen-deployment/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  createHookServer, desired, observedChild, type CompositeRequest, type CompositeResponse, type HookServer, type HookServerOptions,
  type KubeObject, type LabelSelector,
} from 'kube-loom-sdk';

/** The two colours; the label `color` on ReplicaSets, their Pods and the Service's selector says which. */
export type Color = 'blue' | 'green';

/** A Pod template, as far as the hook reads it. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** The parent's Service template: `metadata.name` (default: the parent's name), labels, spec. */
export interface ServiceTemplate {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { selector?: Record<string, string>; [field: string]: unknown };
}

/** The parent type (`crd.yaml`). */
export interface BlueGreenDeployment extends KubeObject {
  spec: {
    replicas?: number;
    minReadySeconds?: number;
    selector: LabelSelector;
    template: PodTemplate;
    service: ServiceTemplate;
  };
}

/** A sync request for a BlueGreenDeployment (v1 or v2 keys alike). */
export type BlueGreenRequest = CompositeRequest<BlueGreenDeployment, 'ReplicaSet.apps/v1' | 'Service.v1'>;

/** Where a ReplicaSet records, as JSON, the parent's Pod template it was made from. */
export const TEMPLATE_ANNOTATION = 'bluegreendeployments.examples.loom.dev/pod-template';
/** The label that tells the colours apart. */
export const COLOR_LABEL = 'color';

/** One colour's ReplicaSet as the hook needs it. */
export interface ObservedSet {
  replicas: number;
  /** The parent template it was made from. */
  template: PodTemplate;
  status: Record<string, unknown>;
  generation: number;
}

/** What one colour's ReplicaSet should be. */
export interface SetPlan {
  replicas: number;
  template: PodTemplate;
}

/** The decision of one sync: the colour the Service selects and each colour's ReplicaSet. */
export interface Plan {
  activeColor: Color;
  sets: Record<Color, SetPlan>;
}

const other = (color: Color): Color => (color === 'blue' ? 'green' : 'blue');
const replicasOf = (bgd: BlueGreenDeployment): number => bgd.spec.replicas ?? 1;
const serviceNameOf = (bgd: BlueGreenDeployment): string => bgd.spec.service.metadata?.name ?? bgd.metadata.name ?? '';
const numberAt = (status: Record<string, unknown>, field: string): number => (typeof status[field] === 'number' ? status[field] : 0);

/**
 * The parent template `rs` was made from. Without a readable annotation (a ReplicaSet made by hand,
 * or the annotation edited), its own `spec.template` stands in: that never equals a parent's
 * template, so such a ReplicaSet is replaced by a rollout rather than changed in place.
 */
function templateOf(rs: KubeObject): PodTemplate {
  const json = rs.metadata.annotations?.[TEMPLATE_ANNOTATION];
  try {
    if (json !== undefined) return JSON.parse(json) as PodTemplate;
  } catch {
    // unreadable: fall through to the ReplicaSet's own template
  }
  return (rs.spec as { template?: PodTemplate } | undefined)?.template ?? {};
}

function observedSet(request: BlueGreenRequest, color: Color): ObservedSet | undefined {
  const rs = observedChild(request, 'ReplicaSet.apps/v1', `${request.parent.metadata.name}-${color}`);
  if (!rs) return undefined;
  return {
    replicas: (rs.spec as { replicas?: number } | undefined)?.replicas ?? 1,
    template: templateOf(rs),
    status: (rs.status as Record<string, unknown> | undefined) ?? {},
    generation: rs.metadata.generation ?? 0,
  };
}

/** The colour the observed Service selects; blue before there is a Service. */
export function activeColorOf(request: BlueGreenRequest): Color {
  const service = observedChild(request, 'Service.v1', serviceNameOf(request.parent));
  const color = (service?.spec as { selector?: Record<string, string> } | undefined)?.selector?.[COLOR_LABEL];
  return color === 'green' ? 'green' : 'blue';
}

/** Every replica of the current spec is ready and available (minReadySeconds passed), and no more. */
function fullyReady(set: ObservedSet, want: number): boolean {
  const { status } = set;
  return numberAt(status, 'observedGeneration') >= set.generation && numberAt(status, 'replicas') === want
    && numberAt(status, 'readyReplicas') === want && numberAt(status, 'availableReplicas') === want;
}

/** Scaled to 0 and without Pods: safe to give another template. */
const drained = (set: ObservedSet): boolean => set.replicas === 0 && numberAt(set.status, 'replicas') === 0;

function planOf(activeColor: Color, active: SetPlan, inactive: SetPlan): Plan {
  return { activeColor, sets: { [activeColor]: active, [other(activeColor)]: inactive } as Record<Color, SetPlan> };
}

const runs = (set: ObservedSet, template: PodTemplate): boolean => isDeepStrictEqual(set.template, template);

/**
 * The idle colour during a rollout to `next`: scaled up with the new template once it has no Pods
 * left (or already runs it), scaled to 0 first otherwise — a ReplicaSet never replaces the Pods it has.
 */
function idleStep(inactive: ObservedSet | undefined, next: SetPlan): SetPlan {
  if (!inactive || drained(inactive) || runs(inactive, next.template)) return next;
  return { replicas: 0, template: inactive.template };
}

/**
 * The rollout step for what is observed:
 * - the live colour runs the parent's template (or does not exist yet): keep it, idle the other;
 * - the idle colour runs it and is fully ready: switch the Service to it, scale the other to 0;
 * - otherwise: keep the live colour and move the idle one towards the new template ({@link idleStep}).
 */
export function rolloutPlan(bgd: BlueGreenDeployment, activeColor: Color, observed: Record<Color, ObservedSet | undefined>): Plan {
  const want = replicasOf(bgd);
  const next = { replicas: want, template: bgd.spec.template };
  const active = observed[activeColor];
  const inactive = observed[other(activeColor)];
  if (!active || runs(active, next.template)) return planOf(activeColor, next, { replicas: 0, template: inactive?.template ?? next.template });
  if (inactive && runs(inactive, next.template) && fullyReady(inactive, want)) {
    return planOf(other(activeColor), next, { replicas: 0, template: active.template });
  }
  return planOf(activeColor, { replicas: want, template: active.template }, idleStep(inactive, next));
}

function withColor(labels: Record<string, string> | undefined, color: Color): Record<string, string> {
  return { ...labels, [COLOR_LABEL]: color };
}

function replicaSet(bgd: BlueGreenDeployment, color: Color, { replicas, template }: SetPlan): KubeObject {
  const { minReadySeconds, selector } = bgd.spec;
  return desired({
    apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${bgd.metadata.name}-${color}`,
    labels: withColor(template.metadata?.labels, color),
    annotations: { [TEMPLATE_ANNOTATION]: JSON.stringify(template) },
    spec: {
      replicas,
      ...(minReadySeconds === undefined ? {} : { minReadySeconds }),
      selector: { ...selector, matchLabels: withColor(selector.matchLabels, color) },
      template: { ...template, metadata: { ...template.metadata, labels: withColor(template.metadata?.labels, color) } },
    },
  });
}

/**
 * The Service from the parent's template, selecting `color`. Its labels include the parent's
 * `matchLabels`, because a child whose labels do not match the parent's selector fails the sync.
 */
function service(bgd: BlueGreenDeployment, color: Color): KubeObject {
  const { metadata, spec } = bgd.spec.service;
  const matchLabels = bgd.spec.selector.matchLabels;
  return desired({
    apiVersion: 'v1', kind: 'Service', name: serviceNameOf(bgd),
    labels: { ...metadata?.labels, ...matchLabels },
    annotations: metadata?.annotations,
    spec: { ...spec, selector: withColor(spec?.selector ?? matchLabels, color) },
  });
}

/** The hook's answer for one BlueGreenDeployment. */
export function bluegreenSync(request: BlueGreenRequest): CompositeResponse {
  const bgd = request.parent;
  const activeColor = activeColorOf(request);
  const observed = { blue: observedSet(request, 'blue'), green: observedSet(request, 'green') };
  const plan = rolloutPlan(bgd, activeColor, observed);
  return {
    status: {
      activeColor,
      active: observed[activeColor]?.status ?? {},
      inactive: observed[other(activeColor)]?.status ?? {},
    },
    children: [
      service(bgd, plan.activeColor),
      replicaSet(bgd, 'blue', plan.sets.blue),
      replicaSet(bgd, 'green', plan.sets.green),
    ],
  };
}

/** A hook server answering `POST /sync`; `logger` defaults to the SDK's own (pino at info). */
export function bluegreenHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: bluegreenSync } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => bluegreenHook({ logger: false });

if (import.meta.main) {
  await bluegreenHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
