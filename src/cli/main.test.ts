import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RUN_FLAGS } from './run-config.ts';

const MAIN = fileURLToPath(new URL('main.ts', import.meta.url));
// The bound only stops a hang: on a loaded machine loom takes seconds to start.
const loom = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 50_000 });

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

  it('describes every flag of run, with its default, in loom run --help', () => {
    const result = loom('run', '--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: loom run \[flags\]/);
    for (const [name, [, value, description]] of Object.entries(RUN_FLAGS)) {
      expect(result.stdout).toContain(`--${name}`);
      expect(result.stdout).toContain(`${description}${value ? ` [${value}]` : ''}`);
    }
  });

  it.each(['install-crds', 'validate', 'dev', 'version'])('has help of its own for %s', (command) => {
    expect(loom(command, '--help').stdout).toMatch(new RegExp(`^usage: loom ${command}`));
  });

  it('prints the global usage for --help without a known command', () => {
    expect(loom('--help').stdout).toMatch(/^usage: loom <command>/);
    expect(loom('nosuch', '--help').stdout).toMatch(/^usage: loom <command>/);
    // Not a property every object has, either.
    expect(loom('toString', '--help').stdout).toMatch(/^usage: loom <command>/);
  });

  it('prints the package version for --version and version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(loom('--version')).toMatchObject({ status: 0, stdout: `loom ${version}\n` });
    expect(loom('version').stdout).toBe(`loom ${version}\n`);
  });
});
