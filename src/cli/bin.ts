#!/usr/bin/env node
/**
 * The installed `loom` command. The package installs on Node 20 and later because its SDK entry point
 * runs there, but the host needs Node 24: check that before loading the host, whose dependencies
 * would otherwise fail on older Node with an error about some internal module.
 */
const MIN_NODE_MAJOR = 24;

const major = Number(process.versions.node.split('.')[0]);
if (major < MIN_NODE_MAJOR) {
  process.stderr.write(`loom: the loom command needs Node.js ${MIN_NODE_MAJOR} or later; this is ${process.version} (kube-loom-sdk runs on Node 20 and later)\n`);
  process.exitCode = 1;
} else {
  await import('./main.ts').catch((err: unknown) => {
    // The host's dependencies are optional so that a hook can install the SDK alone (--omit=optional).
    const missing = err instanceof Error && 'code' in err && err.code === 'ERR_MODULE_NOT_FOUND';
    process.stderr.write(missing ? `loom: ${err.message}: the loom command needs kube-loom's optional dependencies; install it without --omit=optional\n` : `loom: ${String(err)}\n`);
    process.exitCode = 1;
  });
}
