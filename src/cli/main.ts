#!/usr/bin/env node
/**
 * The `loom` command. The composition root for the CLI: reads argv and the environment (nowhere else
 * does), builds the logger, and hands each command what it needs.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { runDev } from './dev.ts';
import { formatError } from './format-error.ts';

const USAGE = `usage: loom <command> [flags]

commands:
  dev     start a local Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager)
          and keep it running until Ctrl-C

flags:
  --log-level <level>   trace, debug, info, warn, error (default: info, or $LOOM_LOG_LEVEL)
  -h, --help            show this help
`;

/** Aborts when the process receives SIGINT or SIGTERM, so every command shuts down the same way. */
function abortOnSignals(): AbortSignal {
  const controller = new AbortController();
  const abort = (signal: NodeJS.Signals): void => controller.abort(new Error(`received ${signal}`));
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  return controller.signal;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'log-level': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const logger = pino({ level: values['log-level'] ?? process.env.LOOM_LOG_LEVEL ?? 'info' }, pino.destination(2));
  switch (command) {
    case 'dev':
      await runDev({ logger, signal: abortOnSignals(), out: process.stdout });
      return 0;
    default:
      process.stderr.write(`loom: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`loom: ${formatError(err)}\n`);
    process.exitCode = 1;
  },
);
