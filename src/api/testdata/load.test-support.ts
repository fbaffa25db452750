/** Loads the YAML fixtures of this folder (tests only: production code in api/ reads no files). */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';

/** The parsed YAML document `name` in `src/api/testdata/`. */
export function fixture(name: string): unknown {
  return load(readFileSync(new URL(name, import.meta.url), 'utf8'));
}

/** The text of CRD file `name` in `src/api/crds/`. */
export function crdText(name: string): string {
  return readFileSync(new URL(`../crds/${name}`, import.meta.url), 'utf8');
}

/** The parsed YAML document `name` in `src/api/crds/`. */
export function crdFile(name: string): unknown {
  return load(crdText(name));
}

/** The text of the Helm chart's copy of CRD file `name` (`charts/loom/crds/`). */
export function chartCrdText(name: string): string {
  return readFileSync(new URL(`../../../charts/loom/crds/${name}`, import.meta.url), 'utf8');
}

/**
 * A deep copy of `doc` with the value at `path` (`spec.childResources[0].resource`) replaced, or
 * removed when `value` is undefined. Missing intermediate objects are created.
 */
export function withField(doc: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(doc) as Record<string, unknown>;
  const keys = path.split(/\.|\[(\d+)\]/).filter((key) => key !== undefined && key !== '');
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys.at(-1) ?? '';
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}
