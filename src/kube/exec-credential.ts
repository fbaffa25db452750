/**
 * Credentials from an exec plugin (a kubeconfig user's `exec`: `aws eks get-token`,
 * `gke-gcloud-auth-plugin`, `kubelogin`...), run the way client-go runs them: not when the kubeconfig
 * is loaded but on the first request, since a plugin may be slow, may prompt a browser or may not be
 * installed where the kubeconfig is only being inspected. Its ExecCredential is kept until its
 * `status.expirationTimestamp` (for good when it has none) and the plugin is run again after that.
 * Requests arriving while it runs wait for that one run rather than each starting their own. A
 * credential the API server refuses (401) is dropped and the plugin run again, as client-go does. A plugin
 * that fails is named with its exit code, never quoted: its stderr may carry the credential.
 */
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';

/** The ExecCredential versions loom speaks; `v1alpha1` is gone from Kubernetes. */
const API_VERSIONS: readonly string[] = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** A user's `exec` section. `interactiveMode` is not kept: loom never has a terminal to hand a plugin. */
export interface ExecConfig {
  /** A name looked up in `PATH`, or a path (already resolved against the kubeconfig's directory). */
  readonly command: string;
  readonly args: readonly string[];
  /** Added to loom's own environment for the plugin. */
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion: string;
  /** Shown when the command cannot be started, to tell the user how to install it. */
  readonly installHint?: string | undefined;
  /** Whether the plugin is told the cluster (`spec.cluster` of `KUBERNETES_EXEC_INFO`). */
  readonly provideClusterInfo: boolean;
}

/** What the plugin answered: a bearer token, a client certificate and key (PEM), or both. */
export interface ExecCredential {
  readonly token?: string | undefined;
  readonly clientCertificateData?: string | undefined;
  readonly clientKeyData?: string | undefined;
}

/** The cluster as a plugin with `provideClusterInfo` is told it (the kubeconfig's field names). */
export type ExecClusterInfo = Record<string, unknown>;

/** The current credential of one user: cached, or from a fresh run of the plugin. */
export interface ExecCredentialSource {
  (): Promise<ExecCredential>;
  /**
   * The API server refused `credential` (401): it is dropped if it is still the cached one, so the
   * next ask runs the plugin again. One already replaced is left alone: the many requests refused
   * together cause one run, not one each.
   */
  refused(credential: ExecCredential): void;
}

/** A credential and when it stops being valid (ms since the epoch; `Infinity`: never). */
interface Answer {
  credential: ExecCredential;
  expiresAt: number;
}

/** Throws for an `exec` section no plugin run could satisfy, so the mistake shows at start-up. */
function validate(config: ExecConfig): void {
  if (!config.command) throw new Error('exec: command is missing');
  if (!API_VERSIONS.includes(config.apiVersion)) {
    throw new Error(`exec plugin ${config.command}: apiVersion "${config.apiVersion}" is not supported (use ${API_VERSIONS.join(' or ')})`);
  }
}

/** `KUBERNETES_EXEC_INFO`: tells the plugin which version to answer in, that no one can answer prompts, and maybe the cluster. */
function execInfo(config: ExecConfig, cluster: ExecClusterInfo | undefined): string {
  return JSON.stringify({ apiVersion: config.apiVersion, kind: 'ExecCredential', spec: { interactive: false, ...(cluster ? { cluster } : {}) } });
}

/** How long a plugin may run before it is killed and the request fails. */
const PLUGIN_TIMEOUT_MS = 60_000;

/** How long a plugin may run, and how that time is waited for (tests reach the deadline themselves). */
export interface PluginDeadline {
  readonly timeoutMs: number;
  /** Resolves after `ms`; rejects once `signal` aborts (the plugin finished first). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real deadline: {@link PLUGIN_TIMEOUT_MS} of wall time. */
const REAL_DEADLINE: PluginDeadline = {
  timeoutMs: PLUGIN_TIMEOUT_MS,
  sleep: async (ms, signal) => {
    await delay(ms, undefined, { signal });
  },
};

/** Kills the plugin and everything it started (its process group); gone already is fine. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the whole group has exited already; nothing is left to stop.
  }
}

/** Why the plugin failed, without its stderr: what it prints there may be the credential itself. */
function failure(config: ExecConfig, code: number | null, signal: NodeJS.Signals | null, stderrBytes: number): Error {
  const how = code === null ? `signal ${signal}` : `exit code ${code}`;
  const said = stderrBytes > 0 ? `it wrote ${stderrBytes} bytes to stderr, not quoted here as they may hold credentials` : 'it wrote nothing to stderr';
  return new Error(`exec plugin ${config.command} failed with ${how} (${said}; run the command to see its output)`);
}

/** The most a plugin may print: an ExecCredential is a few KiB; a plugin printing without end must not fill loom's memory. */
export const MAX_PLUGIN_OUTPUT_BYTES = 1024 * 1024;

/**
 * Runs the plugin; resolves with its stdout, rejects naming the command. Bounded, as client-go bounds
 * it: every request waits for the credential, so a plugin that hangs would otherwise hang them all.
 * The bound holds for the whole wait: the plugin leads a process group of its own, and at the deadline
 * (or once it prints more than {@link MAX_PLUGIN_OUTPUT_BYTES}) that group is killed and the wait ends,
 * even if a process it started holds its output open. Its own group also means no signal to loom
 * reaches it, so while it runs an `exit` listener kills the group when loom exits (a signal handler's
 * or the shutdown grace period's `process.exit`); the listener is removed once the run ends.
 */
function runPlugin(config: ExecConfig, info: string, deadline: PluginDeadline): Promise<string> {
  const env = { ...process.env, ...Object.fromEntries(config.env.map(({ name, value }) => [name, value])), KUBERNETES_EXEC_INFO: info };
  return new Promise((resolve, reject) => {
    const child = spawn(config.command, config.args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const killOnExit = (): void => killGroup(child.pid);
    process.on('exit', killOnExit);
    const finished = new AbortController();
    const settle = (outcome: () => void): void => {
      if (finished.signal.aborted) return;
      finished.abort();
      process.off('exit', killOnExit);
      outcome();
    };
    const stop = (why: string): void => settle(() => {
      killGroup(child.pid);
      child.stdout.destroy();
      child.stderr.destroy();
      reject(new Error(`exec plugin ${config.command} ${why}; it was stopped with every process it started`));
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_PLUGIN_OUTPUT_BYTES) stop(`printed more than ${MAX_PLUGIN_OUTPUT_BYTES} bytes, more than any ExecCredential needs`);
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderrBytes += chunk.length));
    child.once('error', (cause) => {
      const hint = config.installHint ? `\n${config.installHint}` : '';
      settle(() => reject(new Error(`exec plugin ${config.command} could not be run: ${cause.message}${hint}`, { cause })));
    });
    child.once('close', (code, signal) => {
      settle(() => (code === 0 ? resolve(Buffer.concat(stdout).toString('utf8')) : reject(failure(config, code, signal, stderrBytes))));
    });
    deadline.sleep(deadline.timeoutMs, finished.signal).then(() => stop(`did not finish within ${deadline.timeoutMs / 1000} s`), () => undefined);
  });
}

/** The `status` of the plugin's ExecCredential, checked against the version it was asked for. */
function statusOf(config: ExecConfig, stdout: string): Record<string, unknown> {
  let parsed: { apiVersion?: unknown; kind?: unknown; status?: unknown };
  try {
    parsed = JSON.parse(stdout) as typeof parsed;
  } catch {
    // Not quoted: the output may hold the credential, and this message goes to logs and events.
    throw new Error(`exec plugin ${config.command} did not print an ExecCredential (its ${stdout.length} characters of output are not JSON)`);
  }
  if (parsed.kind !== 'ExecCredential') throw new Error(`exec plugin ${config.command} printed kind ${String(parsed.kind)}, not ExecCredential`);
  if (parsed.apiVersion !== config.apiVersion) {
    throw new Error(`exec plugin ${config.command} is configured for ${config.apiVersion} but answered in ${String(parsed.apiVersion)}`);
  }
  if (typeof parsed.status !== 'object' || parsed.status === null) throw new Error(`exec plugin ${config.command} returned no status`);
  return parsed.status as Record<string, unknown>;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The credential in the plugin's output, and when it expires. */
function answerOf(config: ExecConfig, stdout: string): Answer {
  const status = statusOf(config, stdout);
  const credential = { token: text(status.token), clientCertificateData: text(status.clientCertificateData), clientKeyData: text(status.clientKeyData) };
  if (!credential.clientCertificateData !== !credential.clientKeyData) {
    throw new Error(`exec plugin ${config.command} returned only one of clientCertificateData and clientKeyData; both are needed`);
  }
  if (!credential.token && !credential.clientCertificateData) throw new Error(`exec plugin ${config.command} returned neither a token nor a client certificate`);
  const expiration = text(status.expirationTimestamp);
  const expiresAt = expiration === undefined ? Infinity : Date.parse(expiration);
  if (Number.isNaN(expiresAt)) throw new Error(`exec plugin ${config.command} returned an unreadable expirationTimestamp ${expiration}`);
  return { credential, expiresAt };
}

/**
 * The credential source for one user's plugin. `clusterInfo` is asked only when the plugin runs (the
 * CA it reports may be a file that changes).
 */
export function execCredentialSource(config: ExecConfig, clusterInfo: () => ExecClusterInfo, deadline: PluginDeadline = REAL_DEADLINE): ExecCredentialSource {
  validate(config);
  let cached: Answer | undefined;
  let running: Promise<ExecCredential> | undefined;
  const run = async (): Promise<ExecCredential> => {
    const stdout = await runPlugin(config, execInfo(config, config.provideClusterInfo ? clusterInfo() : undefined), deadline);
    cached = answerOf(config, stdout);
    return cached.credential;
  };
  const current = (): Promise<ExecCredential> => {
    if (cached && Date.now() < cached.expiresAt) return Promise.resolve(cached.credential);
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };
  return Object.assign(current, {
    refused(credential: ExecCredential): void {
      if (cached?.credential === credential) cached = undefined;
    },
  });
}
