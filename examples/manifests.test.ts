/**
 * The manifests of every example that runs its hook in a cluster (each folder here with a
 * `deploy.yaml`) agree with each other and with the hook they ship with:
 * - every YAML file parses, and every controller passes `loom validate` with no problem or warning;
 * - every webhook calls the Service of deploy.yaml (name, namespace, port), at a path the hook serves;
 * - deploy.yaml makes the namespace it uses; its Service selects the Deployment's Pods and targets the
 *   port the hook listens on (the container's `PORT`), and both probes ask the hook's `/healthz`;
 * - the folder holds an example parent of a controller's parent type (for a decorator: a target its
 *   selectors match).
 * A new example with a deploy.yaml is checked without a change here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import type { HookServer } from 'kube-loom-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  matchesSelector, parseCompositeController, parseDecoratorController,
  type AnnotationSelector, type DecoratorResourceRule, type Hook, type KubeObject, type LabelSelector, type ParentResourceRule, type Webhook,
} from '../src/api/index.ts';
import { typeCatalog } from '../src/offline/render-types.ts';
import { validateFiles } from '../src/cli/validate.ts';

const EXAMPLES = new URL('./', import.meta.url);
const CONTROLLER_KINDS = ['CompositeController', 'DecoratorController'];

/** Every folder with a deploy.yaml, read when the file is collected so that each gets its own tests. */
const deployed = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/deploy.yaml`, EXAMPLES)))
  .map((entry) => entry.name)
  .sort();

interface Probe {
  httpGet?: { path?: string; port?: string | number };
}

/** The fields of the hook's container this test reads. */
interface Container {
  env?: { name: string; value?: string }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}

interface DeploymentSpec {
  selector: LabelSelector;
  template: { metadata: { labels?: Record<string, string> }; spec: { containers: Container[] } };
}

interface ServiceSpec {
  selector?: Record<string, string>;
  ports: { port: number; targetPort?: string | number }[];
}

/** A controller of the folder and what loom's parser makes of it. */
interface ExampleController {
  file: string;
  webhooks: { hook: string; webhook: Webhook }[];
  /** The parent rule of a CompositeController, the target rules of a DecoratorController. */
  parents: (ParentResourceRule | DecoratorResourceRule)[];
}

/** One example folder, read once for its tests. */
interface Example {
  /** The documents of each YAML file, by file name. */
  files: Map<string, KubeObject[]>;
  controllers: ExampleController[];
  hook: HookServer;
}

const docsOf = (text: string): KubeObject[] => loadAll(text).filter((doc): doc is KubeObject => typeof doc === 'object' && doc !== null);
const ofKind = (docs: Iterable<KubeObject[]>, kind: string): KubeObject[] => [...docs].flat().filter((doc) => doc.kind === kind);

function parseController(file: string, object: KubeObject): ExampleController {
  const parsed = object.kind === 'CompositeController' ? parseCompositeController(object) : parseDecoratorController(object);
  // The validate test reports the problems of a controller loom cannot parse.
  if (!parsed.ok) return { file, webhooks: [], parents: [] };
  const { spec } = parsed.value;
  const hooks: Record<string, Hook | undefined> = { ...spec.hooks };
  const webhooks = Object.entries(hooks).flatMap(([hook, h]) => (h?.webhook ? [{ hook, webhook: h.webhook }] : []));
  return { file, webhooks, parents: 'parentResource' in spec ? [spec.parentResource] : spec.resources };
}

async function readExample(example: string): Promise<Example> {
  const folder = new URL(`${example}/`, EXAMPLES);
  const names = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name)).sort();
  const files = new Map(await Promise.all(names.map(async (name) => [name, docsOf(await readFile(new URL(name, folder), 'utf8'))] as const)));
  const controllers = [...files].flatMap(([file, docs]) =>
    docs.filter((doc) => CONTROLLER_KINDS.includes(doc.kind)).map((doc) => parseController(file, doc)));
  const module = (await import(new URL('hook.ts', folder).href)) as { default: () => HookServer };
  return { files, controllers, hook: module.default() };
}

/** The container port `ref` (a name or a number) names. */
function containerPort(container: Container, ref: string | number | undefined): number | undefined {
  const port = (container.ports ?? []).find((p) => (typeof ref === 'number' ? p.containerPort === ref : p.name === ref));
  return port?.containerPort;
}

/** An annotation selector as the label selector it is, over annotations. */
function asSelector({ matchAnnotations, matchExpressions }: AnnotationSelector): LabelSelector {
  return { ...(matchAnnotations ? { matchLabels: matchAnnotations } : {}), ...(matchExpressions ? { matchExpressions } : {}) };
}

describe.each(deployed)('the %s example', (example) => {
  let ex: Example;
  const docs = (file: string): KubeObject[] => ex.files.get(file) ?? [];
  const deploymentOf = () => ofKind([docs('deploy.yaml')], 'Deployment')[0]?.spec as DeploymentSpec;
  const serviceOf = () => ofKind([docs('deploy.yaml')], 'Service')[0]!;
  const hookContainer = () => deploymentOf().template.spec.containers[0]!;

  beforeAll(async () => {
    ex = await readExample(example);
  });
  afterAll(async () => {
    await ex?.hook.close();
  });

  it('parses, and its controllers pass `loom validate` with no problem or warning', async () => {
    for (const [file, content] of ex.files) expect(content, file).not.toEqual([]);
    expect(ex.controllers).not.toEqual([]);
    const controllerFiles = [...new Set(ex.controllers.map((c) => fileURLToPath(new URL(`${example}/${c.file}`, EXAMPLES))))];
    const result = await validateFiles(controllerFiles);
    expect(result).toMatchObject({ problems: [], warnings: [], checked: ex.controllers.length });
  });

  it('calls the Service of deploy.yaml at paths the hook serves', async () => {
    const service = serviceOf();
    const { port } = (service.spec as ServiceSpec).ports[0]!;
    const webhooks = ex.controllers.flatMap((c) => c.webhooks.map((w) => ({ ...w, where: `${c.file} ${w.hook}` })));
    expect(webhooks).not.toEqual([]);
    for (const { webhook, where } of webhooks) {
      expect(webhook.service, where).toEqual({ name: service.metadata.name, namespace: service.metadata.namespace, port, protocol: 'http' });
      // An empty body is a bad request at a path the hook serves, and 404 at any other.
      const answer = await ex.hook.app.inject({ method: 'POST', url: webhook.path!, payload: {} });
      expect(answer.statusCode, `${where}: POST ${webhook.path}`).toBe(400);
    }
  });

  it('runs the hook in the namespace it makes, behind that Service, on the port the hook listens on', () => {
    const namespaces = ofKind([docs('deploy.yaml')], 'Namespace').map((ns) => ns.metadata.name);
    const deployment = ofKind([docs('deploy.yaml')], 'Deployment')[0]!;
    const service = serviceOf();
    expect(namespaces).toEqual([service.metadata.namespace]);
    expect(deployment.metadata.namespace).toBe(service.metadata.namespace);

    const { selector, template } = deploymentOf();
    expect(matchesSelector(selector, template.metadata.labels)).toBe(true);
    const serviceSpec = service.spec as ServiceSpec;
    expect(matchesSelector({ matchLabels: serviceSpec.selector ?? {} }, template.metadata.labels)).toBe(true);
    expect(template.spec.containers).toHaveLength(1);
    const container = hookContainer();
    const listening = containerPort(container, serviceSpec.ports[0]?.targetPort);
    expect(listening).toBeDefined();
    expect(container.env).toEqual(expect.arrayContaining([{ name: 'HOST', value: '0.0.0.0' }, { name: 'PORT', value: String(listening) }]));
  });

  it("probes the hook's /healthz", async () => {
    const container = hookContainer();
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      expect(probe?.httpGet?.path).toBe('/healthz');
      expect(containerPort(container, probe?.httpGet?.port)).toBe(containerPort(container, (serviceOf().spec as ServiceSpec).ports[0]?.targetPort));
    }
    expect((await ex.hook.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it("holds an example parent of its controller's parent type", () => {
    const catalog = typeCatalog({ crds: ofKind(ex.files.values(), 'CustomResourceDefinition'), examples: [] });
    const found = ex.controllers.flatMap((controller) => controller.parents.flatMap((rule) => {
      const type = catalog.resolve(rule);
      expect(type, `${controller.file}: ${rule.resource}.${rule.apiVersion}`).toBeDefined();
      const parents = [...ex.files.values()].flat().filter((doc) => doc.apiVersion === rule.apiVersion && doc.kind === type?.kind);
      for (const parent of parents) {
        if (!type?.namespaced) expect(parent.metadata.namespace, `${parent.kind} ${parent.metadata.name}`).toBeUndefined();
        if ('labelSelector' in rule && rule.labelSelector) expect(matchesSelector(rule.labelSelector, parent.metadata.labels)).toBe(true);
        if ('annotationSelector' in rule && rule.annotationSelector) expect(matchesSelector(asSelector(rule.annotationSelector), parent.metadata.annotations)).toBe(true);
      }
      return parents;
    }));
    expect(found).not.toEqual([]);
  });
});
