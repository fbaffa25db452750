/**
 * Runs an example's hook as its own process, the way a user runs it locally (`node
 * examples/<name>/hook.ts`), and points the example's controller manifests at it. The process gets
 * `HOST=127.0.0.1 PORT=0`, so the system picks a free port; its URL is read from the first line the
 * hook prints that contains one. It is stopped by PID. {@link startExample} does the whole set-up of
 * an example's test file: the hook, a loom host, and the shipped controllers pointed at the hook.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import type { KubeObject } from '../../src/api/index.ts';
import { startTestLoom, type TestClients, type TestLoom } from './loom.ts';

const EXAMPLES = new URL('../../examples/', import.meta.url);
const URL_PATTERN = /http:\/\/127\.0\.0\.1:\d+/;
const START_TIMEOUT_MS = 20_000;

/** A running example hook. */
export interface ExampleHook {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  stop(): Promise<void>;
}

function waitForUrl(child: ChildProcess, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timeout = AbortSignal.timeout(START_TIMEOUT_MS);
    timeout.addEventListener('abort', () => reject(new Error(`the ${name} hook printed no URL within ${START_TIMEOUT_MS} ms:\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = URL_PATTERN.exec(output)?.[0];
      if (url) resolve(url);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the ${name} hook exited with ${code} before listening:\n${output}`)));
  });
}

/** How to start a hook process: `node script` with `HOST=127.0.0.1 PORT=0` added to the environment. */
export interface HookProcessOptions {
  /** The Node binary. */
  node: string;
  script: string;
  /** The working directory; the test's own by default. */
  cwd?: string;
  /** Names the hook in errors. */
  name: string;
}

/** Starts a hook process and waits for the URL it prints; stopped by PID with SIGTERM. */
export async function startHookProcess({ node, script, cwd, name }: HookProcessOptions): Promise<ExampleHook> {
  const env = { ...process.env, HOST: '127.0.0.1', PORT: '0' };
  const child = spawn(node, [script], { env, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd === undefined ? {} : { cwd }) });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await waitForUrl(child, name);
    return {
      url,
      async stop() {
        if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
        await exited;
      },
    };
  } catch (err) {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    throw err;
  }
}

/** Starts `examples/<example>/hook.ts` with the same Node as the tests. */
export function startExampleHook(example: string): Promise<ExampleHook> {
  return startHookProcess({ node: process.execPath, script: new URL(`${example}/hook.ts`, EXAMPLES).pathname, name: example });
}

type Hooks = Record<string, { webhook?: { url?: string; path?: string; service?: unknown } } | undefined>;

/** A copy of `manifest` whose webhooks call `url` (keeping each hook's path) and that carries `labels`. */
export function pointedAt(manifest: KubeObject, url: string, labels: Record<string, string>): KubeObject {
  const spec = structuredClone(manifest.spec) as { hooks?: Hooks };
  for (const hook of Object.values(spec.hooks ?? {})) {
    const webhook = hook?.webhook;
    if (!webhook) continue;
    const path = webhook.path ?? (webhook.url ? new URL(webhook.url).pathname : '/');
    delete webhook.service;
    delete webhook.path;
    webhook.url = `${url}${path}`;
  }
  return { ...manifest, metadata: { ...manifest.metadata, labels: { ...manifest.metadata.labels, ...labels } }, spec };
}

/** Every document of `examples/<example>/<file>`. */
export async function exampleManifests(example: string, file: string): Promise<KubeObject[]> {
  const text = await readFile(new URL(`${example}/${file}`, EXAMPLES), 'utf8');
  return loadAll(text).filter((doc): doc is KubeObject => typeof doc === 'object' && doc !== null);
}

/** An example running for one test file. */
export interface RunningExample {
  hook: ExampleHook;
  loom: TestLoom;
  /** The controllers as applied: pointed at the hook and labelled for this file's host. */
  controllers: KubeObject[];
  /** Stops the host, then the hook; either may have been stopped already. */
  stop(): Promise<void>;
}

/** Options of {@link startExample}. */
export interface StartExampleOptions {
  /** This file's label: its host runs only the controllers labelled `loom-test: <label>`. */
  label: string;
  /** The example's controller files, each a single controller (default `['controller.yaml']`). */
  controllers?: readonly string[];
}

/**
 * Starts `examples/<example>/hook.ts` and a loom host for `label`, and applies the example's
 * controllers as shipped but pointed at the hook and labelled for that host. What started is
 * stopped again when a later step fails.
 */
export async function startExample(clients: TestClients, example: string, options: StartExampleOptions): Promise<RunningExample> {
  const { label, controllers: files = ['controller.yaml'] } = options;
  const hook = await startExampleHook(example);
  let loom: TestLoom | undefined;
  const stop = async (): Promise<void> => {
    await loom?.stop();
    await hook.stop();
  };
  try {
    loom = await startTestLoom(label);
    const controllers: KubeObject[] = [];
    for (const file of files) {
      const [shipped] = await exampleManifests(example, file);
      if (!shipped) throw new Error(`examples/${example}/${file} holds no controller`);
      const controller = pointedAt(shipped, hook.url, { 'loom-test': label });
      await clients.apply(controller);
      controllers.push(controller);
    }
    return { hook, loom, controllers, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
