/**
 * The indexed-job example's hook: an IndexedJob runs `spec.completions` Pods, `<job>-0` to
 * `<job>-<completions-1>`, at most `spec.parallelism` at a time; each Pod's containers get their index
 * as the `JOB_INDEX` environment variable. A Pod that Succeeded has done its index and stays as it is
 * (its logs remain readable); a Pod that Failed is deleted and its index run again by a new Pod of the
 * same name. The job is `Complete` once every index has Succeeded. The functions are pure.
 *
 * Run alone with `node examples/indexed-job/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  childrenOf, createHookServer, desired, type CompositeRequest, type CompositeResponse, type HookServer, type HookServerOptions,
  type KubeObject,
} from 'kube-loom-sdk';

/** A container of the template, as far as the hook reads it. */
interface Container {
  env?: { name: string; value?: string; [field: string]: unknown }[];
  [field: string]: unknown;
}

/** The parent type. */
export interface IndexedJob extends KubeObject {
  spec?: {
    completions?: number;
    parallelism?: number;
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: { containers?: Container[]; initContainers?: Container[]; restartPolicy?: string; [field: string]: unknown };
    };
  };
}

/** An IndexedJob's sync request. */
export type IndexedJobRequest = CompositeRequest<IndexedJob, 'Pod.v1'>;

/** What became of one index's Pod. */
type PodState = 'active' | 'succeeded' | 'failed';

/** The counts of an IndexedJob's status. */
export interface IndexedJobCounts {
  completions: number;
  active: number;
  succeeded: number;
  failed: number;
}

/** The index of a Pod named `<job>-<n>` (no leading zeros), or `undefined` for any other name. */
export function indexOf(name: string | undefined, job: string): number | undefined {
  const rest = name?.startsWith(`${job}-`) ? name.slice(job.length + 1) : undefined;
  return rest !== undefined && /^(0|[1-9]\d{0,8})$/.test(rest) ? Number(rest) : undefined;
}

function stateOf(pod: KubeObject): PodState {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded') return 'succeeded';
  return phase === 'Failed' ? 'failed' : 'active';
}

/** The state of each index that has a Pod, for the indexes below `completions`. */
function statesByIndex(request: IndexedJobRequest, completions: number): Map<number, PodState> {
  const job = request.parent.metadata.name ?? '';
  const states = new Map<number, PodState>();
  for (const pod of childrenOf(request, 'Pod.v1')) {
    const index = indexOf(pod.metadata.name, job);
    if (index !== undefined && index < completions) states.set(index, stateOf(pod));
  }
  return states;
}

/**
 * The indexes whose Pods to ask for: every active or succeeded one, and, while slots are left under
 * `parallelism`, the lowest indexes without a Pod. A failed index is left out, so its Pod is deleted;
 * the next sync finds the index free and runs it again.
 */
export function desiredIndexes(states: ReadonlyMap<number, PodState>, options: { completions: number; parallelism: number }): number[] {
  let free = options.parallelism - [...states.values()].filter((s) => s === 'active').length;
  const indexes: number[] = [];
  for (let index = 0; index < options.completions; index++) {
    const state = states.get(index);
    if (state === 'active' || state === 'succeeded') indexes.push(index);
    else if (state === undefined && free > 0) {
      indexes.push(index);
      free--;
    }
  }
  return indexes;
}

/** Adds `JOB_INDEX` to a container's environment (replacing one the template may set). */
function withIndex(container: Container, index: number): Container {
  const env = (container.env ?? []).filter((e) => e.name !== 'JOB_INDEX');
  return { ...container, env: [...env, { name: 'JOB_INDEX', value: String(index) }] };
}

/** The Pod of `index`: the template with `JOB_INDEX` set, restarted on failure unless it says otherwise. */
export function podFor(job: IndexedJob, index: number): KubeObject {
  const template = job.spec?.template ?? {};
  const spec = template.spec ?? {};
  return desired({
    apiVersion: 'v1', kind: 'Pod', name: `${job.metadata.name}-${index}`,
    labels: template.metadata?.labels, annotations: template.metadata?.annotations,
    spec: {
      ...spec,
      restartPolicy: spec.restartPolicy ?? 'OnFailure',
      containers: (spec.containers ?? []).map((c) => withIndex(c, index)),
      ...(spec.initContainers ? { initContainers: spec.initContainers.map((c) => withIndex(c, index)) } : {}),
    },
  });
}

/** The status: the counts, and a `Complete` condition once every index has Succeeded. */
export function statusFor(counts: IndexedJobCounts): Record<string, unknown> {
  if (counts.succeeded < counts.completions) return { ...counts };
  const condition = { type: 'Complete', status: 'True', reason: 'AllIndexesSucceeded', message: `${counts.succeeded} of ${counts.completions} indexes succeeded` };
  return { ...counts, conditions: [condition] };
}

/** The answer to a sync request (v1 or v2 object keys alike). */
export function indexedJobSync(request: IndexedJobRequest): CompositeResponse {
  const completions = Math.max(0, request.parent.spec?.completions ?? 1);
  const parallelism = Math.max(0, request.parent.spec?.parallelism ?? 1);
  const states = statesByIndex(request, completions);
  const count = (state: PodState) => [...states.values()].filter((s) => s === state).length;
  return {
    status: statusFor({ completions, active: count('active'), succeeded: count('succeeded'), failed: count('failed') }),
    children: desiredIndexes(states, { completions, parallelism }).map((index) => podFor(request.parent, index)),
  };
}

/** A hook server answering `POST /sync`; `logger` defaults to the SDK's own. */
export function indexedJobHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: indexedJobSync } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => indexedJobHook({ logger: false });

if (import.meta.main) {
  await indexedJobHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
