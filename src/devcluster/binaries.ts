/**
 * Finds or builds the control-plane binaries through `build-binaries.sh`, which owns the versions,
 * the cache and the build lock. Cheap when the cache is current.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BUILD_SCRIPT = fileURLToPath(new URL('./build-binaries.sh', import.meta.url));

/** Where the binaries of one control-plane version live. */
export interface Binaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
}

/** Paths of the three binaries inside `binDir`. */
export function binariesIn(binDir: string): Binaries {
  return {
    etcd: `${binDir}/etcd`,
    kubeApiserver: `${binDir}/kube-apiserver`,
    kubeControllerManager: `${binDir}/kube-controller-manager`,
  };
}

/**
 * Runs the build script and returns the binaries. `onProgress` receives each progress line (a cold
 * build takes many minutes, so silence would look like a hang). Rejects with the script's own last
 * line, which names the failed step and its log file. Aborting `signal` stops the build: the script
 * runs in its own process group, which is signalled by its PID so the `go` processes stop too.
 */
export function ensureBinaries(onProgress: (line: string) => void, signal?: AbortSignal): Promise<Binaries> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stopBuild = (): void => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    };
    signal?.addEventListener('abort', stopBuild, { once: true });
    let binDir = '';
    let lastError = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      binDir = line.trim();
    });
    createInterface({ input: child.stderr }).on('line', (line) => {
      lastError = line;
      onProgress(line);
    });
    child.once('error', (cause) => reject(new Error('could not run the control-plane build script', { cause })));
    child.once('close', (code) => {
      signal?.removeEventListener('abort', stopBuild);
      if (signal?.aborted) reject(new Error('the control-plane build was cancelled', { cause: signal.reason }));
      else if (code === 0 && binDir) resolve(binariesIn(binDir));
      else reject(new Error(lastError || `the control-plane build script exited with code ${code}`));
    });
  });
}
