/**
 * Member Leases do not pile up, on real Leases: a replica deletes the member Leases of replicas gone
 * (unchanged for several Lease durations while it watched, on its own clock), leaves one that has not
 * been unchanged that long and every bucket Lease alone, and deletes its own when it leaves cleanly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { memberLeaseName, SHARD_GROUP_LABEL } from '../src/controllers/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { startTestLoom, testClients, type TestClients } from './support/loom.ts';

const LABEL = 'shard-members';
const GROUP = 'loom-members-test';
const LEASE_MS = 3_000;
let clients: TestClients;
let namespace: string;

const leasePath = (name?: string) => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases${name ? `/${name}` : ''}`;

/** The names of the group's Leases. */
async function leaseNames(): Promise<string[]> {
  const { items } = await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: leasePath(), query: { labelSelector: `${SHARD_GROUP_LABEL}=${GROUP}` } });
  return items.map((lease) => lease.metadata.name ?? '').sort();
}

/** Creates a Lease of the group held by `holder`, last renewed `agoMs` ago, for `durationSeconds`. */
async function createLease(name: string, holder: string, agoMs: number, durationSeconds: number): Promise<void> {
  const renewTime = new Date(Date.now() - agoMs).toISOString().replace(/Z$/, '000Z');
  await clients.client.request({
    method: 'POST', path: leasePath(),
    body: {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, labels: { [SHARD_GROUP_LABEL]: GROUP } },
      spec: { holderIdentity: holder, leaseDurationSeconds: durationSeconds, acquireTime: renewTime, renewTime },
    },
  });
}

beforeAll(async () => {
  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
});

afterAll(async () => {
  await clients.client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` });
});

describe('member Leases', () => {
  it('are removed when their replica left long ago or leaves cleanly, and kept while merely expired', async () => {
    const gone = memberLeaseName(GROUP, 'gone-an-hour-ago');
    const expired = memberLeaseName(GROUP, 'expired-a-minute-ago');
    await createLease(gone, 'gone-an-hour-ago', 3_600_000, LEASE_MS / 1000);
    // Expired by its renewTime, but with a 60 s duration: the replica must watch it unchanged for minutes first.
    await createLease(expired, 'expired-a-minute-ago', 61_000, 60);
    await createLease(`${GROUP}-shard-0`, 'gone-an-hour-ago', 3_600_000, LEASE_MS / 1000);

    const own = memberLeaseName(GROUP, 'one');
    const replica = await startTestLoom(LABEL, { sharding: { namespace, group: GROUP, identity: 'one', buckets: 1, leaseDurationMs: LEASE_MS } });
    // The replica watches it unchanged for five 3 s durations first; the bound only ends a broken run.
    await eventually(async () => {
      const names = await leaseNames();
      return !names.includes(gone) && names.includes(own) ? names : undefined;
    }, 'the member Lease of the replica gone long ago to be deleted', 120_000);
    expect(await leaseNames()).toEqual([`${GROUP}-shard-0`, expired, own].sort());

    await replica.stop();
    expect(await leaseNames()).toEqual([`${GROUP}-shard-0`, expired].sort());
  });
});
