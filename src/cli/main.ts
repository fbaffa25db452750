#!/usr/bin/env node
/**
 * The `loom` command. The CLI's composition root: reads argv and the environment (nowhere else
 * does), builds the logger, and hands each command what it needs.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import { DEFAULT_SHUTDOWN_GRACE_MS, runLoom } from '../main.ts';
import { createRestClient, loadKubeConfig, SERVICE_ACCOUNT_DIR, type KubeEnvironment } from '../kube/index.ts';
import { drainWithin, systemClock } from '../engine/index.ts';
import { formatError } from './format-error.ts';
import { FlagError, parseGoFlags } from './go-flags.ts';
import { logSettings } from './log-settings.ts';
import { tracesWanted } from './otel-environment.ts';
import { textLogStream } from './pretty-log.ts';
import { rootLogger } from './root-logger.ts';
import { RUN_FLAG_SPEC, runConfig, type ReplicaIdentity } from './run-config.ts';
import { abortOnSignals } from './signals.ts';
import { commandUsage, loomVersion, USAGE } from './usage.ts';

/** Aborts on SIGINT or SIGTERM, so every command shuts down the same way; a second signal exits at once. */
const stopSignal = (): AbortSignal => abortOnSignals(process, (status) => process.exit(status));

const POD_NAMESPACE_FILE = `${SERVICE_ACCOUNT_DIR}/namespace`;

/** The variables that choose the cluster when --kubeconfig is not given: a kubeconfig, or in-cluster. */
function kubeEnvironment(): KubeEnvironment {
  return { kubeconfig: process.env.KUBECONFIG, serviceHost: process.env.KUBERNETES_SERVICE_HOST, servicePort: process.env.KUBERNETES_SERVICE_PORT };
}

/** Hostname plus a random suffix (client-go's convention), and the pod's namespace in a cluster. */
async function replicaIdentity(): Promise<ReplicaIdentity> {
  const podNamespace = await readFile(POD_NAMESPACE_FILE, 'utf8').then((t) => t.trim(), () => undefined);
  return { identity: `${hostname()}_${randomUUID()}`, podNamespace };
}

/** The logger of `run` and `dev`: JSON on stderr, or text when a person reads it (see log-settings.ts). */
function logger(values: ReadonlyMap<string, string>): Logger {
  const { level, format, colors } = logSettings(values, {
    level: process.env.LOOM_LOG_LEVEL, terminal: process.stderr.isTTY, noColor: process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '',
  });
  return rootLogger(level, format === 'text' ? textLogStream(process.stderr, colors) : pino.destination(2));
}

/**
 * `loom run` until SIGTERM or SIGINT, then a drain bounded by `--shutdown-grace-period`. Whatever still
 * runs past the bound (a write the API server never answers) must not outlive it: the process exits
 * then, and the Leases it did not let go expire on their own, so no other replica ever overlaps it.
 */
async function run(values: ReadonlyMap<string, string>): Promise<number> {
  const config = runConfig(values, await replicaIdentity(), kubeEnvironment());
  if (tracesWanted(process.env)) config.tracing = { serviceVersion: await loomVersion() };
  const log = logger(values);
  const signal = stopSignal();
  const running = await runLoom({ config, logger: log, signal });
  const graceMs = config.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  if (await drainWithin(running.done, signal, { clock: systemClock, graceMs }) === 'drained') return 0;
  log.error({ graceMs }, 'did not stop within --shutdown-grace-period; exiting anyway');
  process.exit(1);
}

async function command(name: string, values: ReadonlyMap<string, string>, args: readonly string[]): Promise<number> {
  switch (name) {
    case 'run':
      return run(values);
    case 'install-crds': {
      const client = createRestClient({ kubeConfig: loadKubeConfig({ path: values.get('kubeconfig'), context: values.get('context'), environment: kubeEnvironment() }) });
      const { installCrds } = await import('./install-crds.ts');
      const names = await installCrds(client, systemClock, values.get('apply-strategy-ssa-field-manager') ?? 'loom');
      process.stdout.write(names.map((n) => `customresourcedefinition ${n} applied\n`).join(''));
      return 0;
    }
    case 'validate': {
      if (args.length === 0) {
        process.stderr.write('usage: loom validate FILE…\n');
        return 2;
      }
      const { formatValidation, validateFiles } = await import('./validate.ts');
      const result = await validateFiles(args);
      process.stdout.write(formatValidation(result));
      return result.problems.length > 0 ? 1 : 0;
    }
    case 'dev': {
      const { runDev } = await import('./dev.ts');
      await runDev({ logger: logger(values), signal: stopSignal(), out: process.stdout, config: runConfig(values, undefined, kubeEnvironment()) });
      return 0;
    }
    case 'version':
      process.stdout.write(`loom ${await loomVersion()}\n`);
      return 0;
    default:
      process.stderr.write(`loom: unknown command '${name}'\n\n${USAGE}`);
      return 2;
  }
}

/** What a command with flags of its own gets: the streams, the working directory and the cluster-choosing environment. */
interface CommandIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  cwd: string;
  environment: KubeEnvironment;
}

type SelfParsingCommand = (args: string[], io: CommandIO) => Promise<number>;

/** Commands with flags of their own: each reads its arguments itself. Loaded on use, like every command but `run`, so the long-running host holds none of their modules (fastify and YAML among them). */
const SELF_PARSING = new Map<string, () => Promise<SelfParsingCommand>>([
  ['render', async () => (await import('./render.ts')).runRender],
  ['types', async () => (await import('./types.ts')).runTypes],
  ['init', async () => (await import('./init.ts')).runInit],
  ['plan', async () => (await import('./plan.ts')).runPlan],
]);

async function main(argv: string[]): Promise<number> {
  const loadSelfParsing = SELF_PARSING.get(argv[0] ?? '');
  if (loadSelfParsing) return (await loadSelfParsing())(argv.slice(1), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), environment: kubeEnvironment() });
  if (argv.length === 0) {
    process.stdout.write(USAGE);
    return 2;
  }
  if (argv[0] === '--version') return command('version', new Map(), []);
  if (argv.includes('-h') || argv.includes('--help')) {
    const named = argv.find((arg) => !arg.startsWith('-'));
    process.stdout.write((named && commandUsage(named)) ?? USAGE);
    return 0;
  }
  const { values, positionals } = parseGoFlags(argv, RUN_FLAG_SPEC);
  // Flags without a command mean `run`: Metacontroller's image takes flags only, so its Helm chart and
  // manifests pass no command, and they must work unchanged.
  return command(positionals[0] ?? 'run', values, positionals.slice(1));
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`loom: ${formatError(err)}\n`);
    if (err instanceof FlagError) process.stderr.write(`run 'loom <command> --help' for its flags\n`);
    process.exitCode = err instanceof FlagError ? 2 : 1;
  },
);
