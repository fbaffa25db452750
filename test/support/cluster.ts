/**
 * Helpers for integration tests against the local control plane started by the global setup.
 */
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import type { KubeObject } from '../../src/api/index.ts';
import { systemClock } from '../../src/engine/clock.ts';

/** A client configuration for the test run's control plane. */
export function testKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfigPath'));
  return kc;
}

/** Creates a namespace with a unique name for one test file. */
export async function createTestNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const created = await kc.makeApiClient(CoreV1Api).createNamespace({
    body: { metadata: { generateName: `${prefix}-` } },
  });
  const name = created.metadata?.name;
  if (!name) throw new Error('the API server returned a namespace without a name');
  return name;
}

/** True when `err` is the API's 404. */
export function isNotFound(err: unknown): boolean {
  return err instanceof ApiException && err.code === 404;
}

/**
 * Polls `probe` until it returns a value other than `undefined`; fails with `what` after `timeoutMs`.
 * For conditions the cluster reaches asynchronously (garbage collection, CRD establishment).
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = systemClock.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (systemClock.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await systemClock.sleep(100);
  }
}

/** `manager/operation[/subresource]` of each `managedFields` entry of `obj`. */
export function managersOf(obj: KubeObject): string[] {
  const entries = (obj.metadata.managedFields ?? []) as { manager?: string; operation?: string; subresource?: string }[];
  return entries.map((e) => [e.manager, e.operation, e.subresource].filter(Boolean).join('/'));
}
