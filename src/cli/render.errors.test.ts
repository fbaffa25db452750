/**
 * `loom render` when it cannot render: every problem with an input names the file and field, a hook
 * failure prints the hook's message, and both exit 1; bad flags exit 2.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENDER_USAGE } from './render.ts';
import { caseDir, helloHookServer, runWith, type RunOptions } from './render.test-support.ts';

const jsonata = ['--controller', 'controller.yaml', '--parent', 'parent.yaml', '--related', 'related.yaml'];
const webhook = ['--controller', 'controller.yaml', '--parent', 'parent.yaml'];
const decorator = ['--controller', 'controller.yaml', '--parent', 'service.yaml'];

/** Replaces `from` (which must occur) with `to`. */
function swap(from: string, to: string): (text: string) => string {
  return (text) => {
    if (!text.includes(from)) throw new Error(`fixture edit: ${JSON.stringify(from)} not found`);
    return text.replace(from, to);
  };
}

let server: FastifyInstance;
let port = 0;

beforeAll(async () => {
  server = helloHookServer();
  port = Number(new URL(await server.listen({ host: '127.0.0.1', port: 0 })).port);
});

afterAll(async () => {
  await server.close();
});

interface ErrorCase {
  name: string;
  dir: 'jsonata' | 'webhook' | 'module';
  args: string[];
  edit?: RunOptions['edit'];
  stderr: string;
}

const INPUT_ERRORS: ErrorCase[] = [
  {
    name: 'a parent without a name', dir: 'jsonata', args: jsonata, edit: { 'parent.yaml': swap('  name: shop\n', '') },
    stderr: 'parent.yaml: metadata.name: is required\n',
  },
  {
    name: 'problems in several files at once', dir: 'jsonata', args: [...jsonata, '--observed', 'observed.yaml'],
    edit: { 'parent.yaml': swap('kind: Web\n', ''), 'observed.yaml': swap('kind: Service\n', ''), 'related.yaml': swap('    kind: ConfigMap\n', '') },
    stderr: 'parent.yaml: kind: is required\nobserved.yaml: [4] kind: is required\nrelated.yaml: items[2].kind: is required\n',
  },
  {
    name: 'an invalid controller', dir: 'jsonata', args: jsonata, edit: { 'controller.yaml': swap('    resource: webs\n', '') },
    stderr: 'controller.yaml: spec.parentResource.resource: is required\n',
  },
  {
    name: 'a YAML syntax error', dir: 'jsonata', args: jsonata, edit: { 'parent.yaml': swap('  replicas: 3', '  replicas: [3') },
    stderr: 'parent.yaml: (yaml): syntax error at line 11, column 3: deficient indentation\n',
  },
  {
    name: 'a parent file with two objects', dir: 'jsonata', args: jsonata, edit: { 'parent.yaml': (text) => `${text}---\n${text}` },
    stderr: 'parent.yaml: (root): expected one object, found 2\n',
  },
  {
    name: 'a parent of another apiVersion', dir: 'jsonata', args: jsonata, edit: { 'parent.yaml': swap('example.com/v1', 'example.com/v2') },
    stderr: 'parent.yaml: apiVersion: expected example.com/v1, the apiVersion of spec.parentResource (webs.example.com/v1)\n',
  },
  {
    name: 'a parent of another kind', dir: 'jsonata', args: jsonata, edit: { 'parent.yaml': swap('kind: Web', 'kind: Website') },
    stderr: 'parent.yaml: kind: Website: it does not name spec.parentResource webs.example.com/v1 (for an irregular plural, put the CRD in controller.yaml)\n',
  },
  {
    name: 'a parent the parent selector does not match', dir: 'jsonata', args: jsonata,
    edit: { 'controller.yaml': swap('    resource: webs\n', '    resource: webs\n    labelSelector: { matchLabels: { tier: web } }\n') },
    stderr: 'parent.yaml: metadata.labels: do not match spec.parentResource.labelSelector, so loom would not sync this parent\n',
  },
  {
    name: 'a parent without spec.selector', dir: 'jsonata', args: jsonata, edit: { 'controller.yaml': swap('generateSelector: true', 'generateSelector: false') },
    stderr: 'parent.yaml: spec.selector: is missing\n',
  },
  {
    name: 'a JSONata syntax error', dir: 'jsonata', args: jsonata, edit: { 'controller.yaml': swap('$name := parent.metadata.name;', '$name := ;') },
    stderr: 'controller.yaml: spec.hooks.sync.jsonata.expression: syntax error at line 2, column 12: The symbol ";" cannot be used as a unary operator\n',
  },
  {
    name: 'a JSONata hook in a ConfigMap', dir: 'webhook', args: webhook,
    edit: { 'controller.yaml': (text) => text.replace(/sync:\n {6}webhook:\n {8}url: \S+/, 'sync:\n      jsonata:\n        configMapRef: { namespace: hooks, name: hello, key: sync }') },
    stderr: 'note: parent.yaml: metadata.uid is not set; using 00000000-0000-0000-0000-000000000000\ncontroller.yaml: [1] spec.hooks.sync.jsonata.configMapRef: the expression is in ConfigMap hooks/hello (key sync), which render cannot read offline; put it inline as jsonata.expression to render\n',
  },
  {
    name: 'a service webhook without --hook-module', dir: 'module', args: decorator,
    stderr: 'controller.yaml: spec.hooks.sync.webhook.service: a service webhook cannot be reached offline; set webhook.url to where you run the hook (e.g. http://127.0.0.1:8080/sync) or pass --hook-module\n',
  },
  {
    name: 'a module whose default export is no app', dir: 'module', args: [...decorator, '--hook-module', 'not-a-hook.ts'],
    stderr: '--hook-module not-a-hook.ts: the default export is not a fastify instance, an { app } object, or a function returning one\n',
  },
  {
    name: '--hook-module for a controller without webhooks', dir: 'jsonata', args: [...jsonata, '--hook-module', '../module/hook.ts'],
    stderr: '--hook-module: the controller has no webhook hook for the module to serve\n',
  },
  {
    name: 'a target of a type the decorator does not decorate', dir: 'module', args: [...decorator, '--hook-module', 'hook.ts'],
    edit: { 'service.yaml': swap('kind: Service', 'kind: Endpoints') },
    stderr: 'service.yaml: kind: Endpoints (v1) is not one of spec.resources (services.v1) of controller.yaml; for an irregular plural, put the CRD in that file\n',
  },
  {
    name: 'a target the decorator selectors do not match', dir: 'module', args: [...decorator, '--hook-module', 'hook.ts'],
    edit: { 'service.yaml': swap('expose: "true"', 'expose: "false"') },
    stderr: 'service.yaml: metadata: the labels and annotations do not match the selectors of spec.resources, so loom would not sync this target\n',
  },
];

const HOOK_ERRORS: ErrorCase[] = [
  {
    name: 'a JSONata runtime error', dir: 'jsonata', args: jsonata, edit: { 'controller.yaml': swap('$name := parent.metadata.name;', '$name := $error("no name for you");') },
    stderr: 'sync hook: JSONata error at line 2, column 12: no name for you\n',
  },
  {
    name: 'a customize rule that breaks the selection rules', dir: 'jsonata', args: jsonata,
    edit: { 'controller.yaml': swap('"resource": "secrets",', '"resource": "secrets", "namespace": "kube-system",') },
    stderr: 'customize hook: related rule for secrets.v1: a v1 hook of a namespaced parent only sees namespace default, not kube-system (use hook version v2)\n',
  },
  {
    name: 'a child of an undeclared type', dir: 'jsonata', args: jsonata,
    edit: { 'controller.yaml': swap('    - apiVersion: apps/v1\n      resource: deployments\n      updateStrategy: { method: Recreate }\n', '') },
    stderr: 'sync hook: invalid children:\n  desired child Deployment shop has type Deployment.apps/v1, which is not a declared child resource (declared: ConfigMap.v1, Service.v1)\n',
  },
  {
    name: 'a webhook answering 500', dir: 'webhook', args: webhook, edit: { 'controller.yaml': swap('/sync', '/boom') },
    stderr: 'note: parent.yaml: metadata.uid is not set; using 00000000-0000-0000-0000-000000000000\nsync hook POST http://127.0.0.1:PORT/boom: HTTP 500: boom\n',
  },
  {
    name: 'a webhook answering with a child without kind', dir: 'webhook', args: webhook, edit: { 'controller.yaml': swap('/sync', '/garbled') },
    stderr: 'note: parent.yaml: metadata.uid is not set; using 00000000-0000-0000-0000-000000000000\nsync hook: invalid response: children[0].kind: expected a non-empty string\n',
  },
];

describe('loom render errors', () => {
  it.each([...INPUT_ERRORS, ...HOOK_ERRORS])('reports $name', async ({ dir, args, edit, stderr }) => {
    const run = await runWith(args, { dir: caseDir(dir), port, ...(edit ? { edit } : {}) });
    expect(run).toEqual({ code: 1, stdout: '', stderr: stderr.replaceAll('PORT', String(port)) });
  });

  it('says how to reach a webhook that is not listening', async () => {
    const closed = helloHookServer();
    const closedPort = Number(new URL(await closed.listen({ host: '127.0.0.1', port: 0 })).port);
    await closed.close();
    const run = await runWith(webhook, { dir: caseDir('webhook'), port: closedPort });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`sync hook POST http://127.0.0.1:${closedPort}/sync: connect ECONNREFUSED 127.0.0.1:${closedPort}\n  is the hook running? Start it, or pass --hook-module to load it into render\n`);
  });

  it('names a hook module that cannot be loaded', async () => {
    const run = await runWith([...decorator, '--hook-module', 'missing.ts'], { dir: caseDir('module') });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^--hook-module missing\.ts: cannot load the module: .*missing\.ts/);
  });
});

describe('loom render flags', () => {
  it.each([
    [[], 'loom render: --controller and --parent are required\n'],
    [['--controller', 'c.yaml'], 'loom render: --controller and --parent are required\n'],
    [['--controller', 'c.yaml', '--parent', 'p.yaml', '--bogus'], 'loom render: unknown flag --bogus\n'],
    [['--controller', 'c.yaml', '--parent', 'p.yaml', 'extra'], "loom render: unexpected argument 'extra'\n"],
    [['--controller', 'c.yaml', '--parent', 'p.yaml', '--apply-strategy', 'kubectl'], 'loom render: --apply-strategy: "kubectl" is not one of server-side-apply, dynamic-apply\n'],
  ])('exit 2 for %j', async (args, message) => {
    const run = await runWith(args, { dir: caseDir('jsonata') });
    expect(run).toEqual({ code: 2, stdout: '', stderr: `${message}run 'loom render --help' for its flags\n` });
  });

  it('prints the usage for --help', async () => {
    expect(await runWith(['--help'], { dir: caseDir('jsonata') })).toEqual({ code: 0, stdout: RENDER_USAGE, stderr: '' });
  });
});
