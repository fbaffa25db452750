import { testHook, type KubeObject } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { bluegreenHook, TEMPLATE_ANNOTATION, type PodTemplate } from './hook.ts';

const V1 = { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }] } };
const V2 = { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };
const V3 = { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } };

function parent(template: PodTemplate = V1, replicas = 3) {
  return {
    apiVersion: 'examples.loom.dev/v1', kind: 'BlueGreenDeployment', metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas, selector: { matchLabels: { app: 'nginx' } }, template,
      service: { metadata: { name: 'web-frontend', labels: { tier: 'frontend' } }, spec: { ports: [{ port: 80 }] } },
    },
  };
}

interface Observed { replicas: number; template: typeof V1; ready?: number; pods?: number }

/** A ReplicaSet as the API would return it: generation 1, its status up to date. */
function replicaSet(color: string, { replicas, template, ready = 0, pods = replicas }: Observed): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name: `web-${color}`, namespace: 'default', generation: 1, annotations: { [TEMPLATE_ANNOTATION]: JSON.stringify(template) } },
    spec: { replicas, template: { ...template, metadata: { labels: { ...template.metadata.labels, color } } } },
    status: { observedGeneration: 1, replicas: pods, readyReplicas: ready, availableReplicas: ready },
  };
}

const service = (color: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-frontend', namespace: 'default' }, spec: { selector: { app: 'nginx', color } },
});

/** A v1 request (children keyed by name). */
function request(template: PodTemplate, children: { blue?: Observed; green?: Observed; serviceColor?: string }) {
  const sets: Record<string, KubeObject> = {};
  if (children.blue) sets['web-blue'] = replicaSet('blue', children.blue);
  if (children.green) sets['web-green'] = replicaSet('green', children.green);
  const services = children.serviceColor ? { 'web-frontend': service(children.serviceColor) } : {};
  return { parent: parent(template), children: { 'ReplicaSet.apps/v1': sets, 'Service.v1': services } };
}

interface Answer { children?: readonly KubeObject[]; status?: Record<string, unknown> | null }

const childNamed = (answer: Answer, name: string) => answer.children?.find((c) => c.metadata.name === name);
const replicasOf = (answer: Answer, name: string) => (childNamed(answer, name)?.spec as { replicas?: number }).replicas;
const imageOf = (answer: Answer, name: string) =>
  (childNamed(answer, name)?.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]?.image;
const serviceColor = (answer: Answer) => (childNamed(answer, 'web-frontend')?.spec as { selector: Record<string, string> }).selector.color;

/** Colour of the Service, then blue's and green's replicas and images. */
const summary = (answer: Answer) => ({
  service: serviceColor(answer),
  blue: [replicasOf(answer, 'web-blue'), imageOf(answer, 'web-blue')],
  green: [replicasOf(answer, 'web-green'), imageOf(answer, 'web-green')],
});

describe('bluegreen-deployment hook', () => {
  const hook = testHook(bluegreenHook({ logger: false }));

  it('starts blue with every replica and green idle, the Service on blue', async () => {
    const { statusCode, body } = await hook.sync(request(V1, {}));
    expect(statusCode).toBe(200);
    expect(summary(body)).toEqual({ service: 'blue', blue: [3, 'nginx:1.26'], green: [0, 'nginx:1.26'] });
    expect(body.status).toEqual({ activeColor: 'blue', active: {}, inactive: {} });
  });

  it('labels each ReplicaSet, its selector and its Pods with the colour and records the template', async () => {
    const { body } = await hook.sync(request(V1, {}));
    expect(childNamed(body, 'web-green')).toEqual({
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: 'web-green', labels: { app: 'nginx', color: 'green' }, annotations: { [TEMPLATE_ANNOTATION]: JSON.stringify(V1) } },
      spec: {
        replicas: 0, selector: { matchLabels: { app: 'nginx', color: 'green' } },
        template: { metadata: { labels: { app: 'nginx', color: 'green' } }, spec: V1.spec },
      },
    });
  });

  it("builds the Service from the parent's template, with the selector's labels so that it is claimed", async () => {
    const { body } = await hook.sync(request(V1, {}));
    expect(childNamed(body, 'web-frontend')).toEqual({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-frontend', labels: { tier: 'frontend', app: 'nginx' } },
      spec: { ports: [{ port: 80 }], selector: { app: 'nginx', color: 'blue' } },
    });
  });

  it.each([
    ['steady: nothing to roll out', V1, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 0, template: V1 }, serviceColor: 'blue' },
      { service: 'blue', blue: [3, 'nginx:1.26'], green: [0, 'nginx:1.26'] }],
    ['a new template starts on the idle colour', V2, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 0, template: V1 }, serviceColor: 'blue' },
      { service: 'blue', blue: [3, 'nginx:1.26'], green: [3, 'nginx:1.27'] }],
    ['the Service waits while the new colour is not all ready', V2, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 3, template: V2, ready: 2 }, serviceColor: 'blue' },
      { service: 'blue', blue: [3, 'nginx:1.26'], green: [3, 'nginx:1.27'] }],
    ['the Service switches once it is, and the old colour scales to 0', V2, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 3, template: V2, ready: 3 }, serviceColor: 'blue' },
      { service: 'green', blue: [0, 'nginx:1.26'], green: [3, 'nginx:1.27'] }],
    ['after the switch, steady on green', V2, { blue: { replicas: 0, template: V1, pods: 3 }, green: { replicas: 3, template: V2, ready: 3 }, serviceColor: 'green' },
      { service: 'green', blue: [0, 'nginx:1.26'], green: [3, 'nginx:1.27'] }],
    ['a newer template drains the idle colour first', V3, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 3, template: V2, ready: 3 }, serviceColor: 'green' },
      { service: 'green', blue: [0, 'nginx:1.26'], green: [3, 'nginx:1.27'] }],
    ['and, once it is drained, gives it the new template', V3, { blue: { replicas: 0, template: V1, pods: 0 }, green: { replicas: 3, template: V2, ready: 3 }, serviceColor: 'green' },
      { service: 'green', blue: [3, 'nginx:1.28'], green: [3, 'nginx:1.27'] }],
    ['a template changed mid-rollout cancels it', V3, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 3, template: V2, ready: 1 }, serviceColor: 'blue' },
      { service: 'blue', blue: [3, 'nginx:1.26'], green: [0, 'nginx:1.27'] }],
    ['a drained colour still holding Pods is not reused yet', V3, { blue: { replicas: 0, template: V1, pods: 2 }, green: { replicas: 3, template: V2, ready: 3 }, serviceColor: 'green' },
      { service: 'green', blue: [0, 'nginx:1.26'], green: [3, 'nginx:1.27'] }],
  ])('%s', async (_case, template, children, expected) => {
    const { body } = await hook.sync(request(template, children));
    expect(summary(body)).toEqual(expected);
  });

  it('rolls back by scaling up the idle colour when the template goes back to what it runs', async () => {
    const { body } = await hook.sync(request(V1, { blue: { replicas: 0, template: V1, pods: 0 }, green: { replicas: 3, template: V2, ready: 3 }, serviceColor: 'green' }));
    expect(summary(body)).toEqual({ service: 'green', blue: [3, 'nginx:1.26'], green: [3, 'nginx:1.27'] });
  });

  it('does not switch on a status older than the ReplicaSet spec', async () => {
    const req = request(V2, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 3, template: V2, ready: 3 }, serviceColor: 'blue' });
    req.children['ReplicaSet.apps/v1']['web-green']!.metadata.generation = 2;
    const { body } = await hook.sync(req);
    expect(serviceColor(body)).toBe('blue');
  });

  it('reports the live and idle ReplicaSets’ status, read from v2 keys as well', async () => {
    const v1 = request(V2, { blue: { replicas: 3, template: V1, ready: 3 }, green: { replicas: 3, template: V2, ready: 1 }, serviceColor: 'blue' });
    const rekey = (map: Record<string, KubeObject>) => Object.fromEntries(Object.entries(map).map(([k, v]) => [`default/${k}`, v]));
    const v2 = { ...v1, children: { 'ReplicaSet.apps/v1': rekey(v1.children['ReplicaSet.apps/v1']), 'Service.v1': rekey(v1.children['Service.v1']) } };
    const { body } = await hook.sync(v2);
    expect(body.status).toEqual({
      activeColor: 'blue',
      active: { observedGeneration: 1, replicas: 3, readyReplicas: 3, availableReplicas: 3 },
      inactive: { observedGeneration: 1, replicas: 3, readyReplicas: 1, availableReplicas: 1 },
    });
    expect(summary(body)).toEqual({ service: 'blue', blue: [3, 'nginx:1.26'], green: [3, 'nginx:1.27'] });
  });

  it('replaces a ReplicaSet that carries no recorded template by a rollout, not in place', async () => {
    const req = request(V1, { blue: { replicas: 3, template: V1, ready: 3 }, serviceColor: 'blue' });
    delete req.children['ReplicaSet.apps/v1']['web-blue']!.metadata.annotations;
    const { body } = await hook.sync(req);
    expect(summary(body)).toEqual({ service: 'blue', blue: [3, 'nginx:1.26'], green: [3, 'nginx:1.26'] });
  });
});
