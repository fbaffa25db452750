/**
 * The CRDs of the controller shelf (`controllers/<name>/crd.yaml`) and of the examples
 * (`examples/<name>/crd.yaml`). The global setup creates them before the controller-manager starts,
 * so garbage collection knows their kinds from the start. Folders without a crd.yaml (controllers of
 * built-in parents) are skipped.
 */
import { readdir, readFile } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import type { KubeObject } from '../../src/api/index.ts';

const SHELF_DIR = new URL('../../controllers/', import.meta.url);

/** Every CRD document from every `<shelfDir>/*\/crd.yaml` (default `controllers/`), in folder-name order. */
export async function shelfCrds(shelfDir: URL = SHELF_DIR): Promise<KubeObject[]> {
  const entries = await readdir(shelfDir, { withFileTypes: true }).catch(notFoundAsEmpty);
  const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const perFolder = await Promise.all(folders.map((folder) => folderCrds(new URL(`${folder}/crd.yaml`, shelfDir))));
  return perFolder.flat();
}

async function folderCrds(file: URL): Promise<KubeObject[]> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw new Error(`cannot read shelf CRD ${file.pathname}`, { cause: error });
  });
  if (text === undefined) return [];
  // A crd.yaml may hold several documents; empty ones (a trailing `---`) are dropped.
  return loadAll(text).filter((doc): doc is KubeObject => typeof doc === 'object' && doc !== null);
}

function notFoundAsEmpty(error: unknown): never[] {
  if (isNotFound(error)) return [];
  throw error;
}

function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}
