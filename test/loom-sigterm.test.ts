/**
 * `loom run` as a process of its own stops on SIGTERM while its syncs are busy (docs/running-loom.md,
 * "Stopping"): one sync has thousands of child writes to make at a low client rate limit, another waits
 * on a webhook that never answers. The process drains within `--shutdown-grace-period` (exit status 0,
 * no "did not stop" line) and, with `--leader-election`, lets its Lease go on the way out. The test is
 * about the drain ending on its own, not about its speed: the grace period is many times what a drain
 * takes, and what tells a drain from a sync run to its end is how many children were written (the
 * rate limit makes the end minutes away), not a clock.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { spawnLoom, type LoomProcess } from './support/loom-process.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'sigterm';
const KIND = TEST_PARENT_KINDS.terminated;
const MANY = 3_000;
const LEASE = 'loom-sigterm';
/** Far more than a drain takes on a busy machine (it is the writes in flight). */
const GRACE_SECONDS = 120;
/** The grace period and then some: past it loom exits on its own, with status 1. */
const EXIT_TIMEOUT_MS = (GRACE_SECONDS + 60) * 1000;
/** Bounds the waits for a state before the signal (loom started, writing children). */
const STATE_TIMEOUT_MS = 120_000;
let clients: TestClients;
let namespace: string;
let hook: Server;
let hookUrl: string;
/** Requests the never-answering hook holds, with their sockets so the test can end them. */
const held: IncomingMessage[] = [];
const hosts: LoomProcess[] = [];

const MANY_CHILDREN = `{ "children": [[1..${MANY}].{
  "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": $$.parent.metadata.name & "-" & $string($) }
}] }`;

function controller(name: string, kase: string, sync: object): KubeObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name, labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural, labelSelector: { matchLabels: { case: kase } } },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync },
    },
  };
}

const parent = (name: string, kase: string): KubeObject =>
  ({ apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name, namespace, labels: { case: kase } }, spec: {} });

async function childCount(): Promise<number> {
  const list = await clients.client.request<{ items: unknown[] }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps` });
  return list.items.length;
}

/** Resolves how the process exited, or rejects once `EXIT_TIMEOUT_MS` have passed without an exit. */
async function exitOf(host: LoomProcess): Promise<Awaited<LoomProcess['exited']>> {
  const gaveUp = new AbortController();
  const timeout = systemClock.sleep(EXIT_TIMEOUT_MS, gaveUp.signal).then(() => {
    throw new Error(`loom did not exit within ${EXIT_TIMEOUT_MS} ms of SIGTERM; its log ends: ${host.logTail()}`);
  });
  try {
    return await Promise.race([host.exited, timeout]);
  } finally {
    gaveUp.abort();
    timeout.catch(() => undefined);
  }
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  hook = createServer((req) => void held.push(req));
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/sync`;
  await clients.apply(controller('sigterm-many', 'many', { jsonata: { expression: MANY_CHILDREN } }));
  await clients.apply(controller('sigterm-hang', 'hang', { webhook: { url: hookUrl, timeout: '600s' } }));
});

afterAll(async () => {
  for (const host of hosts) await host.kill();
  for (const req of held) req.socket.destroy();
  await new Promise((resolve) => hook.close(resolve));
});

describe('loom run on SIGTERM', () => {
  it('drains and exits while a sync has thousands of writes left and another waits on a hook that never answers', async () => {
    const host = await spawnLoom(LABEL, [
      '--client-go-qps', '20', '--client-go-burst', '20', '--shutdown-grace-period', `${GRACE_SECONDS}s`,
      '--leader-election', '--leader-election-namespace', namespace, '--leader-election-id', LEASE,
    ]);
    hosts.push(host);
    await clients.apply(parent('t1', 'many'));
    await clients.apply(parent('t2', 'hang'));
    await eventually(async () => ((await childCount()) >= 20 ? true : undefined), 'children being written', STATE_TIMEOUT_MS);
    await eventually(() => Promise.resolve(held.length > 0 ? true : undefined), 'the hook call hanging', STATE_TIMEOUT_MS);

    const signalledAt = systemClock.now();
    process.kill(host.pid, 'SIGTERM');
    const exit = await exitOf(host);
    const exitedAfterMs = systemClock.now() - signalledAt;
    const written = await childCount();

    expect(exit).toEqual({ code: 0, signal: null });
    expect(host.logTail()).not.toContain('did not stop within');
    expect(written).toBeLessThan(MANY);
    // A drain that ended on its own lets the leader Lease go, so a standby takes over at once.
    const lease = await clients.writer.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name: LEASE });
    expect((lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '').toBe('');
    console.log(`[sigterm] exited ${exitedAfterMs} ms after SIGTERM, ${written} of ${MANY} children written`);
  }, 3 * STATE_TIMEOUT_MS + EXIT_TIMEOUT_MS);
});
