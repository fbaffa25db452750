/**
 * The contract every {@link HookRunner} keeps (docs/architecture.md, "Tests"): the same cases, run
 * against the webhook runner (a fastify hook server on 127.0.0.1 whose handler computes the response in
 * JS) and the JSONata runner (an equivalent expression), in loom's process and in an evaluator process,
 * must give the same outcome. Each case states its outcome once; both runners are held to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookError } from './hook-error.ts';
import type { HookKind, HookRunner } from './hook-runner.ts';
import { hookServers } from './hook-server.test-support.ts';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import { createEvaluatorPool } from './evaluator-pool.ts';
import { compileIsolatedJsonataHook } from './isolated-jsonata-runner.ts';
import { compileJsonataHook } from './jsonata-runner.ts';
import { createWebhookRunner } from './webhook-runner.ts';

/** The request fields the handlers read; the requests themselves are plain JSON. */
interface Request {
  parent: { metadata: { name: string; namespace: string; generation: number }; spec: { config: Record<string, string>; phase?: string } };
  children: Record<string, Record<string, unknown>>;
  readiness?: Record<string, Record<string, { status: string; message: string }>>;
  finalizing: boolean;
}

interface ContractCase {
  name: string;
  hook: HookKind;
  request: unknown;
  /** What the hook server answers: its status code and JSON body, computed from the request. */
  webhook: (request: Request) => { status: number; body: unknown };
  /** The same hook as a JSONata expression. */
  jsonata: string;
  /** The response both must resolve to, or what both must reject with. */
  outcome: { response: unknown } | { error: { startsWith: string; contains: string } };
}

const controller = { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'web-app' } };

function compositeRequest(finalizing: boolean, observed: Record<string, unknown>) {
  return {
    controller,
    parent: {
      apiVersion: 'example.com/v1', kind: 'WebApp',
      metadata: { name: 'web', namespace: 'default', generation: 4 },
      spec: { config: { LOG_LEVEL: 'info', MODE: 'prod' }, phase: 'Serving' },
    },
    children: { 'ConfigMap.v1': observed, 'Service.v1': {} },
    related: {},
    finalizing,
  };
}

const observedConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'default' }, data: { LOG_LEVEL: 'debug' } };

const ECHO_JSONATA = `{
  "children": [
    { "apiVersion": "v1", "kind": "ConfigMap",
      "metadata": { "name": parent.metadata.name & "-config", "namespace": parent.metadata.namespace },
      "data": parent.spec.config },
    { "apiVersion": "v1", "kind": "Service",
      "metadata": { "name": parent.metadata.name, "namespace": parent.metadata.namespace },
      "spec": { "selector": { "app": parent.metadata.name } } }
  ],
  "status": { "observedGeneration": parent.metadata.generation, "configMaps": $count($keys(children."ConfigMap.v1")) }
}`;

function echoWebhook(request: Request): { status: number; body: unknown } {
  const { name, namespace, generation } = request.parent.metadata;
  return {
    status: 200,
    body: {
      children: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config`, namespace }, data: request.parent.spec.config },
        { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { selector: { app: name } } },
      ],
      status: { observedGeneration: generation, configMaps: Object.keys(request.children['ConfigMap.v1'] ?? {}).length },
    },
  };
}

const FINALIZE_JSONATA = 'finalizing ? { "children": [], "finalized": $count($keys(children."ConfigMap.v1")) = 0 } : { "status": { "phase": "Active" } }';

function finalizeWebhook(request: Request): { status: number; body: unknown } {
  if (!request.finalizing) return { status: 200, body: { status: { phase: 'Active' } } };
  return { status: 200, body: { children: [], finalized: Object.keys(request.children['ConfigMap.v1'] ?? {}).length === 0 } };
}

/** A migration Job whose controller has not caught up with its spec yet: kstatus says InProgress. */
const observedJob = {
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', namespace: 'default', generation: 2 }, status: { observedGeneration: 1 },
};

/** A request with loom's `readiness` field: the verdicts loom computed, keyed as `children`. */
function requestWithReadiness() {
  const request = compositeRequest(false, { 'web-config': observedConfigMap });
  return {
    ...request,
    children: { ...request.children, 'Job.batch/v1': { migrate: observedJob } },
    readiness: {
      'ConfigMap.v1': { 'web-config': { status: 'Current', message: 'Resource is current' } },
      'Service.v1': {},
      'Job.batch/v1': { migrate: { status: 'InProgress', message: 'readyWhen is false' } },
    },
  };
}

const CASES: ContractCase[] = [
  {
    name: 'readiness: a status from the request\'s readiness field and from $ready',
    hook: 'sync',
    request: requestWithReadiness(),
    // The webhook reads the field; it has no $ready, so it judges the ConfigMap (no status: ready) and the Job (generation not observed) itself.
    webhook: (request) => ({
      status: 200,
      body: { status: { migrate: request.readiness?.['Job.batch/v1']?.migrate?.status, configReady: true, jobReady: false, missingReady: false } },
    }),
    jsonata: `{ "status": {
      "migrate": readiness."Job.batch/v1".migrate.status,
      "configReady": $ready(children."ConfigMap.v1"."web-config"),
      "jobReady": $ready($child(children, "Job.batch/v1", "migrate")),
      "missingReady": $ready($child(children, "Job.batch/v1", "seed"))
    } }`,
    outcome: { response: { status: { migrate: 'InProgress', configReady: true, jobReady: false, missingReady: false } } },
  },
  {
    name: 'echo: children derived from the parent, status from what is observed',
    hook: 'sync',
    request: compositeRequest(false, { 'web-config': observedConfigMap }),
    webhook: echoWebhook,
    jsonata: ECHO_JSONATA,
    outcome: {
      response: {
        children: [
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'default' }, data: { LOG_LEVEL: 'info', MODE: 'prod' } },
          { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } },
        ],
        status: { observedGeneration: 4, configMaps: 1 },
      },
    },
  },
  {
    name: 'a response with status only',
    hook: 'sync',
    request: compositeRequest(false, {}),
    webhook: (request) => ({ status: 200, body: { status: { phase: request.parent.spec.phase } } }),
    jsonata: '{ "status": { "phase": parent.spec.phase } }',
    outcome: { response: { status: { phase: 'Serving' } } },
  },
  {
    name: 'finalizing, with children still observed',
    hook: 'finalize',
    request: compositeRequest(true, { 'web-config': observedConfigMap }),
    webhook: finalizeWebhook,
    jsonata: FINALIZE_JSONATA,
    outcome: { response: { children: [], finalized: false } },
  },
  {
    name: 'finalizing, with every child gone',
    hook: 'finalize',
    request: compositeRequest(true, {}),
    webhook: finalizeWebhook,
    jsonata: FINALIZE_JSONATA,
    outcome: { response: { children: [], finalized: true } },
  },
  {
    name: 'the same handler when not finalizing',
    hook: 'sync',
    request: compositeRequest(false, {}),
    webhook: finalizeWebhook,
    jsonata: FINALIZE_JSONATA,
    outcome: { response: { status: { phase: 'Active' } } },
  },
  {
    name: 'a customize response',
    hook: 'customize',
    request: { controller, parent: compositeRequest(false, {}).parent },
    webhook: (request) => ({
      status: 200,
      body: { relatedResources: [{ apiVersion: 'v1', resource: 'secrets', namespace: request.parent.metadata.namespace, names: [`${request.parent.metadata.name}-tls`] }] },
    }),
    jsonata: '{ "relatedResources": [{ "apiVersion": "v1", "resource": "secrets", "namespace": parent.metadata.namespace, "names": [parent.metadata.name & "-tls"] }] }',
    outcome: { response: { relatedResources: [{ apiVersion: 'v1', resource: 'secrets', namespace: 'default', names: ['web-tls'] }] } },
  },
  {
    name: 'a failing sync hook',
    hook: 'sync',
    request: compositeRequest(false, {}),
    webhook: () => ({ status: 500, body: { error: 'boom' } }),
    jsonata: '$error("boom")',
    outcome: { error: { startsWith: 'sync hook', contains: 'boom' } },
  },
  {
    name: 'a failing finalize hook',
    hook: 'finalize',
    request: compositeRequest(true, {}),
    webhook: () => ({ status: 500, body: { error: 'cannot finalize' } }),
    jsonata: '$error("cannot finalize")',
    outcome: { error: { startsWith: 'finalize hook', contains: 'cannot finalize' } },
  },
];

const clock = { now: () => 1_000_000 };
/**
 * No case is about a time bound, so none may hit one on a loaded machine: the in-process runner's
 * clock stands still, the evaluators' pool runs on a clock nothing moves (its watchdog never kills),
 * and the budgets are far beyond what a case takes even where a process waits seconds for a core.
 */
const BUDGET_MS = 60_000;
const servers = hookServers();
let base = '';

beforeAll(async () => {
  base = await servers.fastify((app) => {
    app.post<{ Params: { index: string } }>('/hooks/:index', async (req, reply) => {
      const { status, body } = CASES[Number(req.params.index)]!.webhook(req.body as Request);
      return reply.code(status).send(body);
    });
  });
});
const evaluators = createEvaluatorPool({
  entry: new URL('../jsonata-evaluator.ts', import.meta.url), processes: 2, heapMiB: 128, graceMs: 100, clock: manualClock(),
});
afterAll(() => {
  evaluators.close();
  return servers.closeAll();
});

const RUNNERS: [string, (c: ContractCase) => HookRunner][] = [
  ['webhook', (c) => createWebhookRunner({ url: `${base}/hooks/${CASES.indexOf(c)}`, hook: c.hook, timeoutMs: BUDGET_MS, clock })],
  ['jsonata', (c) => compileJsonataHook({ expression: c.jsonata, hook: c.hook, timeoutMs: BUDGET_MS, clock })],
  ['isolated jsonata', (c) => compileIsolatedJsonataHook({ expression: c.jsonata, hook: c.hook, timeoutMs: BUDGET_MS, clock }, evaluators)],
];

describe.each(RUNNERS)('hook runner contract: %s', (_kind, make) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const result = make(c).call(c.request, new AbortController().signal);
    if ('response' in c.outcome) {
      await expect(result).resolves.toStrictEqual(c.outcome.response);
      return;
    }
    const error: unknown = await result.then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(HookError);
    expect((error as Error).message.startsWith(`${c.outcome.error.startsWith}`)).toBe(true);
    expect((error as Error).message).toContain(c.outcome.error.contains);
  });
});
