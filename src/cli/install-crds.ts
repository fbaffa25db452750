/**
 * `loom install-crds`: applies loom's CRDs (CompositeController, DecoratorController,
 * ControllerRevision) with server-side apply and waits until the API server serves them.
 */
import { readdir, readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import type { KubeObject } from '../api/index.ts';
import type { Clock } from '../engine/index.ts';
import { createObjectWriter, discover, type RestClient } from '../kube/index.ts';

const CRD_DIR = new URL('../api/crds/', import.meta.url);

/** The CRD manifests shipped with loom. */
export async function crdManifests(): Promise<KubeObject[]> {
  const files = (await readdir(CRD_DIR)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(files.map(async (f) => load(await readFile(new URL(f, CRD_DIR), 'utf8')) as KubeObject));
}

/** Applies every CRD and resolves once each is Established; returns their names. */
export async function installCrds(client: RestClient, clock: Clock, fieldManager: string): Promise<string[]> {
  const snapshot = await discover(client);
  const writer = createObjectWriter(client, (apiVersion, kind) => {
    const type = snapshot.byKind(apiVersion, kind);
    if (!type) throw new Error(`the API server does not serve ${kind} ${apiVersion}`);
    return type;
  });
  const crds = await crdManifests();
  for (const crd of crds) await writer.apply(crd, { fieldManager });
  for (const crd of crds) {
    const ref = { apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name ?? '' };
    for (let tries = 0; ; tries++) {
      const current = await writer.get(ref);
      const conditions = (current?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (tries > 300) throw new Error(`CRD ${ref.name} did not become Established`);
      await clock.sleep(100);
    }
  }
  return crds.map((crd) => crd.metadata.name ?? '');
}
