/**
 * The build script's failure modes and its lock, with a stand-in `go` on PATH: a real build takes many
 * minutes and is exercised by every integration run instead.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./build-binaries.sh', import.meta.url));
const VERSIONS = { LOOM_K8S_VERSION: 'v1.99.0', LOOM_ETCD_VERSION: 'v3.99.0' };
/**
 * A stand-in for \`go\`; \`FAKE_DOWNLOAD\` makes \`go mod download\` take a while (\`slow\`) or succeed
 * (\`ok\`), and \`FAKE_BUILD=ok\` makes every step succeed, "building" binaries that print their version
 * the way the real ones do: the line the script checks first, then more lines after a pause.
 */
const FAKE_GO = `#!/usr/bin/env bash
here="$(dirname "$0")"
echo "$*" >> "$here/calls"
fake_binary() { # PATH FIRST-LINE
  printf '#!/usr/bin/env bash\\necho "%s"\\nsleep 0.3\\necho "Git SHA: none"\\necho "Go Version: go0.fake"\\n' "$2" > "$1"
  chmod +x "$1"
}
case "$1 $2" in
  "env GOPROXY") echo off ;;
  "env GOVERSION") echo go0.fake ;;
  "mod download")
    [[ "$FAKE_BUILD" == ok ]] && { printf 'go 1.24.0\\nrequire k8s.io/api v0.0.0\\n' > "$here/k8s.mod"; printf '{\\n  "GoMod": "%s"\\n}\\n' "$here/k8s.mod"; exit 0; }
    [[ "$FAKE_DOWNLOAD" == ok ]] && exit 0
    [[ "$FAKE_DOWNLOAD" == slow ]] && sleep 2.5
    echo "go: module lookup disabled by GOPROXY=off" >&2; exit 1 ;;
  "mod tidy") [[ "$FAKE_BUILD" == ok ]] && exit 0; exit 1 ;;
  "build "*)
    out="$(sed -n 's/.* -o \\([^ ]*\\) .*/\\1/p' <<<"$*")"
    if [[ "$out" == */ ]]; then
      fake_binary "$out/kube-apiserver" "Kubernetes v1.99.0"
      fake_binary "$out/kube-controller-manager" "Kubernetes v1.99.0"
    else
      fake_binary "$out" "etcd Version: 3.99.0"
    fi ;;
  *) echo "go: module lookup disabled by GOPROXY=off" >&2; exit 1 ;;
esac
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Sandbox {
  cacheDir: string;
  fakeBin: string;
  env: NodeJS.ProcessEnv;
}

const sandboxes: string[] = [];
afterAll(() => Promise.all(sandboxes.map((dir) => rm(dir, { recursive: true, force: true }))));

async function sandbox(withGo: boolean): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), 'loom-build-test-'));
  sandboxes.push(root);
  const fakeBin = join(root, 'fakebin');
  await mkdir(fakeBin);
  if (withGo) {
    await writeFile(join(fakeBin, 'go'), FAKE_GO);
    await chmod(join(fakeBin, 'go'), 0o755);
  }
  const cacheDir = join(root, 'cache');
  // Without a stand-in `go`, PATH holds nothing at all, so the real toolchain cannot be found.
  const path = withGo ? `${fakeBin}:/usr/bin:/bin` : fakeBin;
  return { cacheDir, fakeBin, env: { ...VERSIONS, LOOM_CACHE_DIR: cacheDir, PATH: path, HOME: root } };
}

function runScript(env: NodeJS.ProcessEnv, onStderr?: (text: string) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/bash', [SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const buildDir = (cacheDir: string) => join(cacheDir, 'kube', 'v1.99.0-etcd-v3.99.0-go0.fake');

// Each run of the script takes seconds of real time (its steps poll once a second): a busy machine must
// not turn that into a timeout.
describe('build-binaries.sh', { timeout: 120_000 }, () => {
  it('says in one line that Go is missing', async () => {
    const box = await sandbox(false);
    const run = await runScript(box.env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      "loom devcluster: step 'find go' failed: no 'go' on PATH (Go >= 1.24 is needed to build the control plane)",
    );
  });

  it('names the failed step and its log file, and marks nothing as built', async () => {
    const box = await sandbox(true);
    const run = await runScript(box.env);
    const dir = buildDir(box.cacheDir);
    const log = join(dir, 'logs', 'download-kubernetes.log');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      `loom devcluster: step 'download k8s.io/kubernetes@v1.99.0' failed; full log: ${log}`,
    );
    expect(await readFile(log, 'utf8')).toContain('module lookup disabled');
    expect(existsSync(join(dir, 'bin'))).toBe(false);
    // Run again: a failed build must not be mistaken for a finished one.
    expect((await runScript(box.env)).code).toBe(1);
  });

  it('numbers each step, says when one is done and how long it took', async () => {
    const box = await sandbox(true);
    const run = await runScript({ ...box.env, FAKE_DOWNLOAD: 'ok' });
    expect(run.stderr).toMatch(/^loom devcluster: \[1\/5\] download k8s\.io\/kubernetes@v1\.99\.0$/m);
    expect(run.stderr).toMatch(/^loom devcluster: \[1\/5\] download k8s\.io\/kubernetes@v1\.99\.0: done in \d+m\d\ds$/m);
  });

  it('says every interval that a long step is still running, and for how long', async () => {
    const box = await sandbox(true);
    const run = await runScript({ ...box.env, FAKE_DOWNLOAD: 'slow', LOOM_PROGRESS_INTERVAL: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^loom devcluster: \[1\/5\] download k8s\.io\/kubernetes@v1\.99\.0: still running \(\d+m\d\ds, \d+m\d\ds in all\)$/m);
  });

  it('waits for a build in progress elsewhere and then uses its result instead of building again', async () => {
    const box = await sandbox(true);
    await mkdir(join(box.cacheDir, 'kube'), { recursive: true });
    // Another "test run" holds the build lock until we close its stdin.
    const holder = spawn('/bin/bash', ['-c', 'exec 9>"$1"; flock 9; echo locked; read -r _', 'holder',
      join(box.cacheDir, 'kube', 'build.lock')], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise((resolve) => holder.stdout.once('data', resolve));

    const bin = join(buildDir(box.cacheDir), 'bin');
    let released = false;
    // Let go only once this run has said that it is still waiting.
    const run = await runScript({ ...box.env, LOOM_PROGRESS_INTERVAL: '1' }, (stderr) => {
      if (released || !stderr.includes('still waiting for the other build (')) return;
      released = true;
      // The other run finishes its build: it publishes the binaries, then lets go of the lock.
      void mkdir(bin, { recursive: true })
        .then(() => writeFile(join(bin, '.built'), 'kubernetes=v1.99.0 etcd=v3.99.0 go=go0.fake\n'))
        .then(() => holder.stdin.end());
    });

    expect(run.stderr).toContain('another run is building the control plane; waiting for');
    expect(run.stderr).toMatch(/still waiting for the other build \(\d+m\d\ds\)/);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(bin);
    const calls = await readFile(join(box.fakeBin, 'calls'), 'utf8');
    expect(calls).not.toContain('mod download');
  });

  it('checks the versions of what it built without racing their output, and publishes them', async () => {
    // The check reads only the first line; a reader that stops there must not make the check fail
    // with the binary's SIGPIPE on the lines it prints after it.
    const box = await sandbox(true);
    const run = await runScript({ ...box.env, FAKE_BUILD: 'ok' });
    const bin = join(buildDir(box.cacheDir), 'bin');
    expect(run.stderr).not.toContain('failed');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(bin);
    expect(await readFile(join(bin, '.built'), 'utf8')).toBe('kubernetes=v1.99.0 etcd=v3.99.0 go=go0.fake\n');
  });

  it('takes an interval that is not a whole number of seconds for the default, rather than spinning', async () => {
    const box = await sandbox(true);
    const run = await runScript({ ...box.env, FAKE_DOWNLOAD: 'slow', LOOM_PROGRESS_INTERVAL: '0' });
    expect(run.code).toBe(1);
    // The 2.5 s step is shorter than the default 30 s interval: no progress line at all.
    expect(run.stderr).not.toContain('still running');
  });
});
