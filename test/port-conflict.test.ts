/**
 * A port taken between choosing it and binding it: the real etcd fails to bind, and the start is
 * retried on fresh ports instead of failing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/engine/clock.ts';
import { ensureBinaries } from '../src/devcluster/index.ts';
import { etcdArgs } from '../src/devcluster/components.ts';
import type { ManagedProcess } from '../src/devcluster/managed-process.ts';
import { freeLoopbackPort } from '../src/devcluster/ports.ts';
import { probe } from '../src/devcluster/probe.ts';
import { startComponent } from '../src/devcluster/start-component.ts';

const processes: ManagedProcess[] = [];
let squatter: Server | undefined;
let runDir = '';

afterAll(async () => {
  for (const p of processes) await p.stop();
  await new Promise((resolve) => squatter?.close(resolve) ?? resolve(undefined));
  if (runDir) await rm(runDir, { recursive: true, force: true });
});

function occupyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    // Connections (our own readiness probes) are dropped at once, so closing the server never waits.
    squatter = createServer((socket) => socket.destroy());
    squatter.once('error', reject);
    squatter.listen(0, '127.0.0.1', () => resolve((squatter!.address() as { port: number }).port));
  });
}

describe('a port taken before the bind', () => {
  it('is retried with another port', async () => {
    const { etcd } = await ensureBinaries(() => {});
    runDir = await mkdtemp(join(tmpdir(), 'loom-port-conflict-'));
    const taken = await occupyPort();
    const offered: number[] = [];
    // The first port handed out is the taken one; every later one is really free.
    const choosePort = async () => {
      const port = offered.length === 0 ? taken : await freeLoopbackPort();
      offered.push(port);
      return port;
    };
    const ctx = { clock: systemClock, runDir, processes, startedAt: systemClock.now(), readyAfterMs: {}, choosePort };

    const { ports } = await startComponent(ctx, {
      name: 'etcd',
      binary: etcd,
      portCount: 2,
      timeoutMs: 30_000,
      args: ([client, peer]) => etcdArgs(join(runDir, 'etcd'), { client: client!, peer: peer! }),
      ready: async ([client]) => (await probe(`http://127.0.0.1:${client}/health`)).body.includes('"health":"true"'),
    });

    expect(ports).not.toContain(taken);
    // Two ports for the failed try and two for the next; more only if another process took a free port in between.
    expect(offered.length).toBeGreaterThanOrEqual(4);
    expect(processes).toHaveLength(1);
    expect(await readFile(join(runDir, 'etcd.log'), 'utf8')).toMatch(/address already in use/);
  });
});
