import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('main.ts', import.meta.url));
const loom = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('the loom command', () => {
  it('runs the host when given flags but no command, as Metacontroller\'s image and Helm chart start it', () => {
    const result = loom('--zap-log-level=4', '--kubeconfig', '/nonexistent/kubeconfig');
    expect(result.stderr).not.toContain('unknown command');
    // `run` got as far as reading the kubeconfig it was given.
    expect(result.stderr).toContain('/nonexistent/kubeconfig');
    expect(result.status).toBe(1);
  });

  it('prints its usage with no arguments at all', () => {
    const result = loom();
    expect(result.stdout).toMatch(/^usage: loom <command>/);
    expect(result.status).toBe(2);
  });
});
