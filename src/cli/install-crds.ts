/**
 * `loom install-crds`: applies loom's CRDs (CompositeController, DecoratorController,
 * ControllerRevision) with server-side apply and waits until the API server serves them.
 */
import { readdir, readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import type { KubeObject } from '../api/index.ts';
import type { Clock } from '../engine/index.ts';
import { waitForCrdsEstablished, writerFromDiscovery, type RestClient } from '../kube/index.ts';

const CRD_DIR = new URL('../api/crds/', import.meta.url);

/** The CRD manifests shipped with loom. */
export async function crdManifests(): Promise<KubeObject[]> {
  const files = (await readdir(CRD_DIR)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(files.map(async (f) => load(await readFile(new URL(f, CRD_DIR), 'utf8')) as KubeObject));
}

/** Applies every CRD and resolves once each is Established; returns their names. */
export async function installCrds(client: RestClient, clock: Clock, fieldManager: string): Promise<string[]> {
  const writer = await writerFromDiscovery(client, 'loom-cli');
  const crds = await crdManifests();
  for (const crd of crds) await writer.apply(crd, { fieldManager });
  const names = crds.map((crd) => crd.metadata.name ?? '');
  await waitForCrdsEstablished(client, names, { sleep: (ms, signal) => clock.sleep(ms, signal) });
  return names;
}
