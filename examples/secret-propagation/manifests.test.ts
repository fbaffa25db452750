/**
 * The manifests agree with each other: the controller manages crd.yaml's type and calls the Service
 * deploy.yaml runs the hook behind, on a port that reaches the hook; the example parent is of the type.
 */
import { readFile } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';

/** The fields of the manifests this test reads; loadAll's result is cast to it, the assertions check it. */
interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: { plural: string; kind: string };
    versions: { name: string }[];
    parentResource: unknown;
    hooks: Record<string, { webhook: unknown }>;
    selector: Record<string, string>;
    ports: { port: number; targetPort: string }[];
    template: Doc;
    containers: { env: unknown[]; ports: { name: string; containerPort: number }[]; readinessProbe: { httpGet: { path: string } } }[];
  };
}

const docs = async (file: string) => loadAll(await readFile(new URL(file, import.meta.url), 'utf8')) as Doc[];
const one = (list: Doc[], kind: string): Doc => list.find((d) => d.kind === kind)!;

describe('secret-propagation manifests', () => {
  it('point the controller at crd.yaml and at the Service that deploy.yaml runs hook.ts behind', async () => {
    const [crd, controller, deploy, parents] = await Promise.all([docs('crd.yaml'), docs('controller.yaml'), docs('deploy.yaml'), docs('secretpropagation.yaml')]);
    const { group, names, versions } = one(crd, 'CustomResourceDefinition').spec;
    const apiVersion = `${group}/${versions[0]!.name}`;
    const { parentResource, hooks } = one(controller, 'CompositeController').spec;
    expect(parentResource).toEqual({ apiVersion, resource: names.plural });
    expect(parents[0]).toMatchObject({ apiVersion, kind: names.kind });

    const service = one(deploy, 'Service');
    const pod = one(deploy, 'Deployment').spec.template;
    const container = pod.spec.containers[0]!;
    for (const hook of ['customize', 'sync']) {
      expect(hooks[hook]?.webhook).toEqual({ service: { name: service.metadata.name, namespace: service.metadata.namespace }, path: `/${hook}` });
    }
    expect(service.spec.selector).toEqual(pod.metadata.labels);
    expect(service.spec.ports[0]).toMatchObject({ port: 80, targetPort: container.ports[0]!.name });
    expect(container.env).toContainEqual({ name: 'PORT', value: String(container.ports[0]!.containerPort) });
    expect(container.readinessProbe.httpGet.path).toBe('/healthz');
  });
});
