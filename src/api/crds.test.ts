/**
 * The CRDs in `crds/`: what the API server needs to accept them (annotation, group, structural
 * schema), what Metacontroller manifests need (names, scope, enums, required fields, defaults), and
 * that the schema and the parser agree on every field (a field missing from the schema would be
 * pruned by the API server before loom ever saw it).
 */
import { describe, expect, it } from 'vitest';
import { isRecord } from './field-reader.ts';
import { chartCrdText, crdFile, crdText, fixture } from './testdata/load.test-support.ts';
import { API_APPROVED_ANNOTATION, API_APPROVED_VALUE, API_GROUP, API_VERSION } from './well-known.ts';

interface Schema {
  description?: string;
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  enum?: unknown[];
  default?: unknown;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames?: string[] };
    versions: { name: string; served: boolean; storage: boolean; subresources?: { status?: object }; schema: { openAPIV3Schema: Schema } }[];
  };
}

const crds = {
  composite: crdFile('compositecontrollers.yaml') as Crd,
  decorator: crdFile('decoratorcontrollers.yaml') as Crd,
  revision: crdFile('controllerrevisions.yaml') as Crd,
};

function rootSchema(crd: Crd): Schema {
  const version = crd.spec.versions[0];
  if (!version) throw new Error(`${crd.metadata.name} has no version`);
  return version.schema.openAPIV3Schema;
}

/** The schema at a dotted path of property names (`[]` steps into array items). */
function at(schema: Schema, path: string): Schema {
  let node: Schema | undefined = schema;
  for (const step of path.split('.')) {
    node = step === '[]' ? node?.items : node?.properties?.[step];
    if (!node) throw new Error(`no schema at ${path} (stuck at ${step})`);
  }
  return node;
}

const specOf = (crd: Crd): Schema => at(rootSchema(crd), 'spec');

/** What the API server would refuse in a structural schema (the subset a generator could get wrong). */
function nodeProblems(node: Schema, path: string): string[] {
  const problems: string[] = [];
  if (!node.type) problems.push(`${path}: no type`);
  if (node.properties && node.additionalProperties) problems.push(`${path}: properties and additionalProperties`);
  if (node.enum && node.default !== undefined && !node.enum.includes(node.default)) problems.push(`${path}: default not in enum`);
  const missing = (node.required ?? []).filter((name) => !node.properties?.[name]);
  return [...problems, ...missing.map((name) => `${path}: required ${name} is not a property`)];
}

function structuralProblems(node: Schema, path: string): string[] {
  return [
    ...nodeProblems(node, path),
    ...Object.entries(node.properties ?? {}).flatMap(([key, child]) => structuralProblems(child, `${path}.${key}`)),
    ...(node.items ? structuralProblems(node.items, `${path}[]`) : []),
    ...(node.additionalProperties ? structuralProblems(node.additionalProperties, `${path}{}`) : []),
  ];
}

describe.each(Object.entries(crds))('%s CRD', (_name, crd) => {
  it('is a v1 CRD in the metacontroller.k8s.io group with the api-approved annotation', () => {
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.kind).toBe('CustomResourceDefinition');
    expect(crd.spec.group).toBe(API_GROUP);
    expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.${API_GROUP}`);
    expect(crd.metadata.annotations?.[API_APPROVED_ANNOTATION]).toBe(API_APPROVED_VALUE);
  });

  it('serves and stores v1alpha1 only', () => {
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([[API_VERSION, true, true]]);
  });

  it('has a structural schema: every node typed, no properties beside additionalProperties', () => {
    expect(structuralProblems(rootSchema(crd), '')).toEqual([]);
  });
});

describe('CompositeController and DecoratorController CRDs', () => {
  it.each([
    [crds.composite, 'CompositeController', ['cc', 'cctl']],
    [crds.decorator, 'DecoratorController', ['dec', 'decorators']],
  ])('are cluster-scoped with short names and a status subresource', (crd, kind, shortNames) => {
    expect(crd.spec.names.kind).toBe(kind);
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.names.shortNames).toEqual(shortNames);
    expect(crd.spec.versions[0]?.subresources?.status).toEqual({});
    expect(at(rootSchema(crd), 'status')).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  });

  it('has loom’s jsonata hook next to webhook under spec.hooks.sync', () => {
    for (const crd of [crds.composite, crds.decorator]) {
      const sync = at(specOf(crd), 'hooks.sync');
      expect(Object.keys(sync.properties ?? {})).toEqual(['version', 'webhook', 'jsonata']);
      expect(at(sync, 'jsonata.expression').type).toBe('string');
      expect(at(sync, 'jsonata.timeout')).toMatchObject({ type: 'string', format: 'duration' });
      expect(at(sync, 'jsonata.configMapRef').required).toEqual(['name', 'namespace', 'key']);
    }
  });

  it('uses one identical Hook schema for every hook of both kinds', () => {
    const hooks = [crds.composite, crds.decorator]
      .flatMap((crd) => Object.values(at(specOf(crd), 'hooks').properties ?? {}))
      .map(({ description: _what, ...hook }) => hook);
    expect(hooks).toHaveLength(8);
    for (const hook of hooks) expect(hook).toEqual(hooks[0]);
  });

  it('has the enums, required fields and CRD-level defaults of Metacontroller', () => {
    const cc = specOf(crds.composite);
    const hook = at(cc, 'hooks.sync');
    const methods = ['OnDelete', 'Recreate', 'InPlace', 'RollingRecreate', 'RollingInPlace'];
    expect(at(cc, 'childResources.[].updateStrategy.method').enum).toEqual(methods);
    expect(at(specOf(crds.decorator), 'attachments.[].updateStrategy.method').enum).toEqual(methods);
    expect(at(hook, 'version')).toMatchObject({ enum: ['v1', 'v2'], default: 'v1' });
    expect(at(hook, 'webhook.responseUnMarshallMode').enum).toEqual(['loose', 'strict']);
    expect(at(hook, 'webhook.timeout').format).toBe('duration');
    expect(cc.required).toEqual(['parentResource']);
    expect(specOf(crds.decorator).required).toEqual(['resources']);
    expect(at(cc, 'parentResource').required).toEqual(['apiVersion', 'resource']);
    expect(at(cc, 'childResources.[]').required).toEqual(['apiVersion', 'resource']);
    expect(at(cc, 'childResources.[].updateStrategy.statusChecks.conditions.[]').required).toEqual(['type']);
    expect(at(cc, 'endpointConfigs.[]').required).toEqual(['host']);
    expect(at(hook, 'webhook.service').required).toEqual(['name', 'namespace']);
    expect(at(hook, 'webhook.authorization.secretRef').required).toEqual(['name', 'namespace', 'key']);
    expect(at(hook, 'webhook.basicAuth.secretRef').required).toEqual(['name', 'namespace']);
    expect(at(hook, 'webhook.authorization.type').default).toBe('Bearer');
    expect(at(hook, 'webhook.caBundle.secretRef.key').default).toBe('ca.crt');
    expect(at(hook, 'webhook.caBundle.configMapRef.key').default).toBe('ca.crt');
    expect(at(hook, 'webhook.clientTLS.certKey').default).toBe('tls.crt');
    expect(at(hook, 'webhook.clientTLS.privateKeyKey').default).toBe('tls.key');
    expect(at(hook, 'webhook.basicAuth.usernameKey').default).toBe('username');
    expect(at(hook, 'webhook.basicAuth.passwordKey').default).toBe('password');
  });
});

describe('loom’s ordering, readiness and child policy fields', () => {
  it('are on CompositeController childResources[] with the parser’s enums and bounds, readyCondition and orderedTeardown on its spec', () => {
    const cc = specOf(crds.composite);
    const rule = at(cc, 'childResources.[]');
    expect(at(rule, 'wave')).toMatchObject({ type: 'integer', minimum: -999_999_999, maximum: 999_999_999 });
    expect(at(rule, 'readyWhen')).toMatchObject({ type: 'string', minLength: 1 });
    expect(at(rule, 'deletionPolicy').enum).toEqual(['Delete', 'Orphan', 'Retain']);
    expect(at(rule, 'onImmutableChange').enum).toEqual(['Recreate', 'Fail']);
    expect(at(rule, 'adopt').enum).toEqual(['IfExists', 'Never']);
    expect(at(cc, 'readyCondition').type).toBe('boolean');
    expect(at(cc, 'orderedTeardown').type).toBe('boolean');
  });

  it('have no CRD-level default: absent means Metacontroller’s behaviour, and the parser decides', () => {
    const rule = at(specOf(crds.composite), 'childResources.[]');
    for (const field of ['wave', 'readyWhen', 'deletionPolicy', 'onImmutableChange', 'adopt']) expect(at(rule, field).default).toBeUndefined();
    expect(at(specOf(crds.composite), 'readyCondition').default).toBeUndefined();
    expect(at(specOf(crds.composite), 'orderedTeardown').default).toBeUndefined();
  });
});

describe('the columns of kubectl get', () => {
  const columnsOf = (crd: Crd) =>
    ((crd.spec.versions[0] as { additionalPrinterColumns?: { name: string; jsonPath: string; priority?: number }[] }).additionalPrinterColumns ?? [])
      .map((c) => `${c.name}${c.priority ? ' (wide)' : ''}: ${c.jsonPath}`);
  const status = [
    'Ready: .status.conditions[?(@.type=="Ready")].status',
    'Syncs Failing: .status.conditions[?(@.type=="SyncsFailing")].status',
    'Failing Parents: .status.failingParents',
    'Reason (wide): .status.conditions[?(@.type=="Ready")].reason',
    'Last Sync Error (wide): .status.conditions[?(@.type=="SyncsFailing")].message',
  ];

  it('show whether a controller runs and whether its syncs fail, for both kinds', () => {
    expect(columnsOf(crds.composite)).toEqual([
      'Parent: .spec.parentResource.resource', ...status, 'API Version (wide): .spec.parentResource.apiVersion', 'Age: .metadata.creationTimestamp',
    ]);
    expect(columnsOf(crds.decorator)).toEqual(['Resource: .spec.resources[0].resource', ...status, 'Age: .metadata.creationTimestamp']);
  });
});

describe('the Helm chart’s CRDs', () => {
  it.each(['compositecontrollers.yaml', 'decoratorcontrollers.yaml', 'controllerrevisions.yaml'])('are the same as loom’s own: %s', (name) => {
    expect(chartCrdText(name)).toBe(crdText(name));
  });
});

describe('ControllerRevision CRD', () => {
  it('is namespaced with a free-form parentPatch and version-less children', () => {
    const crd = crds.revision;
    expect(crd.spec.names.kind).toBe('ControllerRevision');
    expect(crd.spec.scope).toBe('Namespaced');
    const schema = rootSchema(crd);
    expect(at(schema, 'parentPatch')).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(at(schema, 'children.[]').required).toEqual(['apiGroup', 'kind', 'names']);
    expect(at(schema, 'children.[].names.[]').type).toBe('string');
  });
});

// ---- schema ⇔ fixtures ------------------------------------------------------------------------

/** All hooks share one schema, so coverage is counted per hook field, whichever hook sets it. */
const normalise = (path: string): string => path.replace(/^spec\.hooks\.[^.]+/, 'spec.hooks.*');

/** Every property path under `schema` (maps and free-form objects are leaves). */
function schemaPaths(schema: Schema, path: string, out: Set<string>): Set<string> {
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const childPath = path ? `${path}.${key}` : key;
    out.add(normalise(childPath));
    schemaPaths(child, childPath, out);
  }
  if (schema.items) schemaPaths(schema.items, `${path}[]`, out);
  return out;
}

interface Walk {
  covered: Set<string>;
  problems: string[];
}

const typeOf = (value: unknown): string =>
  Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : isRecord(value) ? 'object' : typeof value;

function checkValue(value: unknown, schema: Schema, path: string, walk: Walk): void {
  if (schema.type && typeOf(value) !== schema.type) walk.problems.push(`${path}: ${typeOf(value)} is not ${schema.type}`);
  if (schema.enum && !schema.enum.includes(value)) walk.problems.push(`${path}: ${String(value)} not in enum`);
}

/** Checks `value` against `schema` (field known, type, enum) and records the paths it covers. */
function walkDocument(value: unknown, schema: Schema, path: string, walk: Walk): void {
  checkValue(value, schema, path, walk);
  const { items, properties } = schema;
  if (Array.isArray(value) && items) value.forEach((item) => walkDocument(item, items, `${path}[]`, walk));
  if (!isRecord(value) || !properties) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const childSchema = properties[key];
    if (!childSchema) walk.problems.push(`${childPath}: not in the schema (the API server would prune it)`);
    else {
      walk.covered.add(normalise(childPath));
      walkDocument(child, childSchema, childPath, walk);
    }
  }
}

describe.each([
  ['composite', crds.composite, ['composite-every-field.yaml', 'catset-controller.yaml']],
  ['decorator', crds.decorator, ['decorator-every-field.yaml', 'decorator-jsonata.yaml', 'service-per-pod.yaml']],
])('%s CRD schema and fixtures', (_name, crd, files) => {
  const walk: Walk = { covered: new Set(), problems: [] };
  for (const file of files) {
    const doc = fixture(file) as Record<string, unknown>;
    walkDocument(doc.spec, specOf(crd), 'spec', walk);
  }

  it('knows every field the fixtures set, with the right types and enum values', () => {
    expect(walk.problems).toEqual([]);
  });

  it('has no field the fixtures (which the parser reads without warnings) leave out', () => {
    const declared = schemaPaths(specOf(crd), 'spec', new Set());
    expect([...declared].filter((path) => !walk.covered.has(path))).toEqual([]);
  });
});
