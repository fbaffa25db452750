/**
 * The `User-Agent` loom sends the API server, in client-go's shape (`<program>/<version> (<os>/<arch>)
 * <more>`): audit logs then name the caller, and API Priority and Fairness can match it. Node's own
 * version stands where client-go puts its git commit.
 */
import { readFileSync } from 'node:fs';

/** loom's version: from the nearest package.json named kube-loom above this module (two folders up in the sources, three in the package). */
function loomVersion(): string {
  for (let dir = new URL('./', import.meta.url); dir.pathname !== '/'; dir = new URL('../', dir)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'kube-loom' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No readable package.json here: look one folder up.
    }
  }
  return 'unknown';
}

/** `loom/<version> (<platform>/<arch>) node/<version>`; reads package.json, so call it once per client. */
export function defaultUserAgent(): string {
  return `loom/${loomVersion()} (${process.platform}/${process.arch}) node/${process.version}`;
}
