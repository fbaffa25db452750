/**
 * What `loom --help`, `loom <command> --help` and `loom --version` print. Every flag's line comes from
 * {@link RUN_FLAGS}, so a new flag cannot be left out of the help.
 */
import { readFile } from 'node:fs/promises';
import { RUN_FLAGS } from './run-config.ts';

type FlagName = keyof typeof RUN_FLAGS;

/** The help text of `loom plan`. */
export const PLAN_USAGE = `usage: loom plan --controller FILE [--hook-module FILE] [--kubeconfig FILE] [--context NAME]
                 [--apply-strategy server-side-apply|dynamic-apply] [--apply-strategy-ssa-field-manager NAME]
                 [--exit-code]

Plans a changed CompositeController or DecoratorController against a live cluster: reads its parents
(targets) and their children (attachments), runs the manifest's hooks for each, and prints per
parent what loom would create, update, recreate, leave alone or delete, with a field diff. With
server-side apply every write is tried as a server-side dry run, so defaulting and admission count:
a write the API server would refuse says why (refused). Children in waves or dependsOn (or
spec.readyCondition) add each child's wave and readiness, what a sync would hold, and the parent's
Ready condition, as loom render shows them. Writes nothing.

  --controller FILE   the controller manifest to plan (the changed one)
  --hook-module FILE  serve its webhook hooks from this module (as for loom render)
  --kubeconfig FILE   the cluster; else $KUBECONFIG, in-cluster, ~/.kube/config
  --context NAME      the kubeconfig's context
  --apply-strategy    how updates are judged, as loom's flag [server-side-apply]
  --apply-strategy-ssa-field-manager NAME
                      the field manager of the dry-run applies, as loom's flag [loom]
  --exit-code         exit 2 when anything would change or be refused, 0 when nothing would

A customize hook's related objects are read from the cluster. Not yet: with dynamic-apply, changes
are judged offline, as loom render judges them.
`;

/** The help text of `loom types`. */
export const TYPES_USAGE = `usage: loom types FILE… [--out FILE]

Generates TypeScript types for hooks written with kube-loom-sdk from the CustomResourceDefinitions,
CompositeControllers and DecoratorControllers in the files (other objects are skipped):
  - per served CRD version, its object type (apiVersion and kind as literals) and one type per
    top-level field of its schema (<Kind>Spec, <Kind>Status);
  - the Kubernetes built-in kinds the controllers name, with their top-level fields;
  - per controller, named after it: the keys of its children or attachments, its sync/finalize
    request and response, and its customize request when it has a customize hook.
The module imports only kube-loom-sdk. desired<Kind>({ … }), or desired({ … }) where a response
type expects one, checks the object's fields.

  --out FILE   write the module to FILE instead of stdout
`;

const COMMANDS = `commands:
  run            run the controller host against a cluster (the default when only flags are given)
  install-crds   apply loom's CRDs (CompositeController, DecoratorController, ControllerRevision)
  validate FILE… check controller manifests offline; prints \`file: path: message\`, exits 1 on any problem
  render         run a controller's hooks for one parent offline and print what loom would do
  plan           what a changed controller would do to a live cluster's parents, writing nothing
  types FILE…    generate TypeScript types for hooks from CRDs and controllers (typed requests, desired())
  init [DIR]     scaffold a controller for a new kind: CRD, controller, hook, render golden, README
  dev            run loom and the hello example on a local control plane, or on --kubeconfig's cluster
  version        print loom's version`;

/** The global usage: the commands, and where to find each one's flags. */
export const USAGE = `usage: loom <command> [flags]

${COMMANDS}

'loom <command> --help' describes a command and its flags; 'loom --version' prints the version.
`;

/** `  --name  what it does [default]`, aligned. */
function flagLines(names: readonly FlagName[]): string {
  const width = Math.max(...names.map((n) => n.length)) + 4;
  return names.map((name) => {
    const [, value, description] = RUN_FLAGS[name];
    return `  ${`--${name}`.padEnd(width)}${description}${value ? ` [${value}]` : ''}`;
  }).join('\n');
}

const ALL_FLAGS = Object.keys(RUN_FLAGS) as FlagName[];
const CLUSTER_FLAGS: FlagName[] = ['kubeconfig', 'context'];

/** Each command's help; `render` and `init` print their own. */
const COMMAND_USAGE: Record<string, string> = {
  run: `usage: loom run [flags]

Runs the CompositeControllers and DecoratorControllers of a cluster until SIGTERM or Ctrl-C. Takes
Metacontroller's flags, so its manifests and Helm values work unchanged.

flags (defaults in brackets):
${flagLines(ALL_FLAGS)}
`,
  'install-crds': `usage: loom install-crds [flags]

Applies loom's CRDs (the same as Metacontroller's) with server-side apply and waits until they are served.

flags:
${flagLines([...CLUSTER_FLAGS, 'apply-strategy-ssa-field-manager'])}
`,
  validate: `usage: loom validate FILE…

Checks CompositeController and DecoratorController manifests offline: schema, hook form, JSONata
syntax, field paths, near-miss kinds. Prints \`file: path: message\` per problem and exits 1 on any;
prints nothing for valid manifests. Files holding no controller at all are a problem.
Given the parent's CRD too, checks the parent fields inline expressions read and the status they write.
`,
  dev: `usage: loom dev [flags]

Starts a local control plane (built from Go modules on first use), installs loom's CRDs and the hello
example, serves its hook in-process and runs loom, until Ctrl-C stops everything. With --kubeconfig it
uses that cluster instead and starts nothing but loom and the hook; there it creates only what is absent,
labels what it creates app.kubernetes.io/managed-by=loom-dev, refuses to start over a hello-controller
it did not create, and runs only controllers with that label.

flags: those of 'loom run' (see 'loom run --help'); dev chooses the metrics and probe addresses.
`,
  types: TYPES_USAGE,
  plan: PLAN_USAGE,
  version: `usage: loom version (or loom --version)

Prints loom's version.
`,
};

/** The help of `command`, or `undefined` for an unknown one. */
export function commandUsage(command: string): string | undefined {
  return Object.hasOwn(COMMAND_USAGE, command) ? COMMAND_USAGE[command] : undefined;
}

/** The fields of loom's package.json that loom reads. */
export interface LoomManifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * loom's package.json: the nearest one named kube-loom above this module, which is two folders up
 * from the sources and three from the compiled package; `undefined` when there is none.
 */
export async function loomManifest(): Promise<LoomManifest | undefined> {
  for (let dir = new URL('./', import.meta.url); dir.pathname !== '/'; dir = new URL('../', dir)) {
    const manifest = await readFile(new URL('package.json', dir), 'utf8').then((text) => JSON.parse(text) as LoomManifest, () => undefined);
    if (manifest?.name === 'kube-loom') return manifest;
  }
  return undefined;
}

/** loom's version, from {@link loomManifest}. */
export async function loomVersion(): Promise<string> {
  return (await loomManifest())?.version || 'unknown';
}
