/**
 * The README of a `loom init` scaffold: what the files are, and how to test, run and change the
 * controller, for the hook and controller kind chosen.
 */
import { GOLDEN_FILE } from './init-golden.ts';
import type { Scaffold } from './init-names.ts';

function filesTable(scaffold: Scaffold): string {
  const { kind } = scaffold.names;
  const type = scaffold.controller === 'composite' ? 'CompositeController' : 'DecoratorController';
  const hook = scaffold.hook === 'jsonata' ? 'its sync hook is the inline JSONata expression' : 'its sync hook is `hook.ts`, at the webhook `url`';
  const rows = [
    ['crd.yaml', `the \`${kind}\` type`],
    ['controller.yaml', `the ${type}; ${hook}`],
    ...(scaffold.hook === 'typescript'
      ? [['hook.ts', 'the hook on `kube-loom-sdk`; the sync function is the whole logic'], ['hook.test.ts', 'its unit tests (vitest, through `testHook`: no socket, no cluster)'], ['tsconfig.json', 'for `tsc`, which only checks: Node runs `hook.ts` as it is']]
      : []),
    ['example.yaml', `a \`${kind}\` to apply and to render`],
    [GOLDEN_FILE, 'what `loom render` prints for `example.yaml`; `npm test` compares'],
    ['package.json', `pins loom (the golden is its output)${scaffold.hook === 'typescript' ? ' and the SDK' : ''}; the scripts below`],
  ];
  return ['| file | what |', '|---|---|', ...rows.map(([file, what]) => `| \`${file}\` | ${what} |`)].join('\n');
}

function testSection(scaffold: Scaffold): string {
  const steps = scaffold.hook === 'jsonata' ? '' : '\n2. `tsc` type-checks the hook and `vitest` runs its unit tests;';
  const objects = scaffold.controller === 'composite' ? 'children' : 'attachments';
  return `## Test it offline

\`\`\`sh
npm install
npm test
\`\`\`

\`npm test\` runs, with no cluster:

1. \`loom validate controller.yaml\`: the schema, the hook's form${scaffold.hook === 'jsonata' ? ', the JSONata syntax' : ''};${steps}
${scaffold.hook === 'jsonata' ? '2' : '3'}. \`loom render\` on \`example.yaml\`, its output compared with \`${GOLDEN_FILE}\`.

\`npm run render\` prints what loom would do for the example: the ${objects} it would apply and the
status it would write. After changing the hook on purpose, \`npm run golden:update\` rewrites the
golden: review its diff before you commit it. With \`--observed FILE\`, \`loom render\` also shows
the plan for objects that exist already, with a field-level diff (\`npx loom render --help\`).`;
}

function runSection(scaffold: Scaffold): string {
  const { plural, sampleName } = scaffold.names;
  const start = scaffold.hook === 'typescript' ? 'npm start &                      # serves hook.ts on :8080, where controller.yaml\'s url points\n' : '';
  return `## Run it

loom must run against the cluster: \`npx loom dev\` starts a local control plane with loom's CRDs
installed and runs loom on it (it prints the kubeconfig to use; its first start builds the control
plane, which takes a few minutes). For any other cluster, apply loom's CRDs once with
\`npx loom install-crds\` and start \`npx loom run\` (both use your kubeconfig). Then:

\`\`\`sh
kubectl apply -f crd.yaml
kubectl apply -f controller.yaml
${start}kubectl apply -f example.yaml
kubectl get ${plural}
kubectl get configmap ${sampleName} -o yaml
\`\`\`

loom needs permission to manage ConfigMaps and to write \`${plural}/status\`.`;
}

function deploySection(scaffold: Scaffold): string {
  if (scaffold.hook === 'jsonata') {
    return `## Deploy

There is no hook service to build or run: apply \`crd.yaml\` and \`controller.yaml\` to a cluster where
loom runs (JSONata hooks are loom's own: Metacontroller does not run them).`;
  }
  return `## Deploy

In a cluster, run the hook as any Node 24 service (\`npm ci --omit=dev && node hook.ts\`; it listens
on \`HOST\`:\`PORT\`, default \`0.0.0.0:8080\`) behind a Service, and point controller.yaml's webhook at
it instead of \`url\`, e.g. \`webhook: { service: { name: ${scaffold.names.kebab}-hook, namespace: default, port: 8080 }, path: /sync }\`.
\`loom render\` keeps working: it calls \`hook.ts\` in-process at the webhook's path.`;
}

/** Where a CompositeController's children can be put in order (docs/ordering-and-readiness.md). */
const ORDER_HINT = `
- Children that must wait for others (a claim before the StatefulSet that mounts it) take a \`wave\`
  on their \`childResources\` entry, or the \`loom.dev/wave\` and \`loom.dev/depends-on\` annotations;
  \`readyWhen\` says when one of your own types is ready. See loom's docs/ordering-and-readiness.md.`;

function changeSection(scaffold: Scaffold): string {
  const hook = scaffold.hook === 'jsonata' ? 'the expression in `controller.yaml`' : 'the sync function in `hook.ts`';
  const rules = scaffold.controller === 'composite' ? 'childResources' : 'attachments';
  return `## Change it

- The logic is ${hook}; \`npm test\` tells what changed.
- A new spec field goes into \`crd.yaml\`'s schema first, then into \`example.yaml\`.
- Every status field the hook writes needs its place in \`crd.yaml\`'s status schema: the API server
  silently drops the fields it does not name.
- Another type of object to manage goes into \`spec.${rules}\` of \`controller.yaml\`, with its
  \`updateStrategy\`; \`loom validate\` and \`loom render\` check the result.${scaffold.controller === 'composite' ? ORDER_HINT : ''}`;
}

/** `README.md`. */
export function readme(scaffold: Scaffold): string {
  const { kind, apiVersion, controllerName } = scaffold.names;
  const how = scaffold.controller === 'composite' ? 'owned by it' : 'attached to it';
  const condition = scaffold.controller === 'composite'
    ? ' loom also writes a `Ready` condition on it (`readyCondition: true`), True once the ConfigMap\nexists and is ready: the `READY` column of `kubectl get`.'
    : '';
  return `# ${controllerName}

A controller for \`${kind}\` (\`${apiVersion}\`), run by loom (the \`kube-loom\` package)
and scaffolded by \`loom init\`. Each ${kind} gets a ConfigMap of the same name, ${how}, holding
its \`spec.message\`; its status says whether that ConfigMap exists (\`ready\`).${condition} Replace that with
your own logic: the tests and the render golden are there to keep it honest.

## Files

${filesTable(scaffold)}

${testSection(scaffold)}

${runSection(scaffold)}

${deploySection(scaffold)}

${changeSection(scaffold)}
`;
}
