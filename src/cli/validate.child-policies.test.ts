/**
 * `loom validate` on loom's ordering and readiness (docs/ordering-and-readiness.md): a child type's
 * `readyWhen` compiles, and the children an inline hook builds literally carry loom.dev/* annotations
 * that parse, depend on declared child kinds, never on a sibling of a higher wave, and form no cycle.
 */
import { describe, expect, it } from 'vitest';
import { composite, memoryFiles, validateOne } from './validate.test-support.ts';
import { validateFiles } from './validate.ts';

const EXPRESSION = 'c.yaml: spec.hooks.sync.jsonata.expression: ';

const CHILD_TYPES = [
  { apiVersion: 'v1', resource: 'persistentvolumeclaims' },
  { apiVersion: 'apps/v1', resource: 'statefulsets' },
  { apiVersion: 'batch/v1', resource: 'jobs' },
  { apiVersion: 'v1', resource: 'configmaps' },
];

/** A literal child of `kind` named `name` with `annotations`, as a JSONata object constructor. */
function child(apiVersion: string, kind: string, name: string, annotations: Record<string, string> = {}): string {
  return JSON.stringify({ apiVersion, kind, metadata: { name, annotations } });
}

/** A controller whose sync expression answers `children`, one a line from line 3 on, column 5. */
function answering(children: string[], childResources: object[] = CHILD_TYPES): string {
  return composite({ childResources, hooks: { sync: { jsonata: { expression: `{\n  "children": [\n    ${children.join(',\n    ')}\n  ]\n}` } } } });
}

const pvc = (annotations: Record<string, string> = {}) => child('v1', 'PersistentVolumeClaim', 'data', annotations);
const sts = (annotations: Record<string, string> = {}) => child('apps/v1', 'StatefulSet', 'db', annotations);

describe('loom validate: readyWhen of a child type', () => {
  it('reports one that does not compile, at the rule, with line and column', async () => {
    const result = await validateOne('c.yaml', composite({ childResources: [{ apiVersion: 'v1', resource: 'configmaps', readyWhen: 'status.phase = ' }] }));
    expect(result.problems).toEqual([expect.stringMatching(/^c\.yaml: spec\.childResources\[0\]\.readyWhen: syntax error at line 1, column \d+: /) as string]);
  });

  it('takes one that compiles', async () => {
    const result = await validateOne('c.yaml', composite({ childResources: [{ apiVersion: 'v1', resource: 'configmaps', readyWhen: 'status.phase = "Bound" and $exists(status.capacity)' }] }));
    expect(result).toMatchObject({ problems: [], warnings: [] });
  });
});

describe('loom validate: loom.dev annotations of literal children', () => {
  it('takes children in order, with dependsOn naming declared kinds, with and without their group', async () => {
    const result = await validateOne('c.yaml', answering([
      pvc(),
      child('batch/v1', 'Job', 'migrate', { 'loom.dev/wave': '1', 'loom.dev/ready-when': 'status.succeeded >= 1' }),
      sts({ 'loom.dev/wave': '2', 'loom.dev/depends-on': 'PersistentVolumeClaim/data, Job.batch/migrate' }),
    ]));
    expect(result).toMatchObject({ problems: [], warnings: [] });
  });

  it.each([
    ['a wave that is not an integer', { 'loom.dev/wave': 'soon' }, 'loom.dev/wave: expected an integer, got "soon"'],
    ['an unknown deletion policy', { 'loom.dev/deletion-policy': 'Keep' }, 'loom.dev/deletion-policy: expected one of Delete, Orphan, Retain, got "Keep"'],
    ['an unknown immutable-change policy', { 'loom.dev/on-immutable-change': 'Replace' }, 'loom.dev/on-immutable-change: expected one of Recreate, Fail, got "Replace"'],
    ['an empty ready-when', { 'loom.dev/ready-when': ' ' }, 'loom.dev/ready-when: empty expression'],
    ['a sibling that is not Kind/name', { 'loom.dev/depends-on': 'data' }, 'loom.dev/depends-on: "data" is not Kind[.group]/[namespace/]name'],
  ])('reports %s, naming the child and where it is built', async (_name, annotations, message) => {
    const result = await validateOne('c.yaml', answering([sts(annotations)]));
    expect(result.problems).toEqual([`${EXPRESSION}line 3, column 5: StatefulSet "db": ${message}`]);
  });

  it('reports a ready-when annotation that does not compile', async () => {
    const result = await validateOne('c.yaml', answering([sts({ 'loom.dev/ready-when': 'status.readyReplicas >' })]));
    expect(result.problems).toEqual([expect.stringMatching(/^c\.yaml: spec\.hooks\.sync\.jsonata\.expression: line 3, column 5: StatefulSet "db": loom\.dev\/ready-when: syntax error at line 1, column \d+: /) as string]);
  });

  it('names a child whose name is computed by its kind', async () => {
    const expression = '{ "children": [{ "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": { "name": parent.metadata.name, "annotations": { "loom.dev/wave": "x" } } }] }';
    const result = await validateOne('c.yaml', composite({ childResources: CHILD_TYPES, hooks: { sync: { jsonata: { expression } } } }));
    expect(result.problems).toEqual([`${EXPRESSION}line 1, column 16: a StatefulSet: loom.dev/wave: expected an integer, got "x"`]);
  });

  it('does not check annotations whose values are computed', async () => {
    const expression = '{ "children": [{ "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": { "name": "db", "annotations": { "loom.dev/wave": $string(parent.spec.wave), "loom.dev/depends-on": "Nothing/" & parent.metadata.name } } }] }';
    const result = await validateOne('c.yaml', composite({ childResources: CHILD_TYPES, hooks: { sync: { jsonata: { expression } } } }));
    expect(result).toMatchObject({ problems: [], warnings: [] });
  });
});

describe('loom validate: dependsOn', () => {
  it('reports a sibling kind no child type declares, with the kind it probably meant', async () => {
    const result = await validateOne('c.yaml', answering([sts({ 'loom.dev/depends-on': 'PersistentVolumeClam/data' })]));
    expect(result.problems).toEqual([
      `${EXPRESSION}line 3, column 5: StatefulSet "db": loom.dev/depends-on: PersistentVolumeClam/data: no child type of kind PersistentVolumeClam is among spec.childResources (did you mean PersistentVolumeClaim?)`,
    ]);
  });

  it('reports a sibling whose group is not the declared one', async () => {
    const result = await validateOne('c.yaml', answering([sts({ 'loom.dev/depends-on': 'Job.apps/migrate' })]));
    expect(result.problems).toEqual([
      `${EXPRESSION}line 3, column 5: StatefulSet "db": loom.dev/depends-on: Job.apps/migrate: no child type of kind Job in group apps is among spec.childResources (Job is declared in batch)`,
    ]);
  });

  it('asks for the group when two declared types share the kind', async () => {
    const types = [...CHILD_TYPES, { apiVersion: 'example.com/v1', resource: 'jobs' }];
    const crd = JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'jobs.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'jobs', kind: 'Job' }, versions: [{ name: 'v1', served: true, storage: true }] },
    });
    const controller = answering([sts({ 'loom.dev/depends-on': 'Job/migrate' })], types);
    const result = await validateFiles(['c.yaml', 'crd.yaml'], memoryFiles({ 'c.yaml': controller, 'crd.yaml': crd }));
    expect(result.problems).toEqual([
      `${EXPRESSION}line 3, column 5: StatefulSet "db": loom.dev/depends-on: Job/migrate: 2 child types have kind Job (in batch, example.com); name the group, as Job.batch/migrate`,
    ]);
  });

  it('only warns when the kind of a custom child type is a guess (no CRD given, an irregular plural)', async () => {
    const types = [...CHILD_TYPES, { apiVersion: 'example.com/v1', resource: 'mice' }];
    const result = await validateOne('c.yaml', answering([sts({ 'loom.dev/depends-on': 'Mouse/jerry' })], types));
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([
      `warning: ${EXPRESSION}line 3, column 5: StatefulSet "db": loom.dev/depends-on: Mouse/jerry: no child type of kind Mouse is among spec.childResources as far as the regular plurals of their resources tell; give loom validate their CRDs to be sure`,
    ]);
  });

  it('reports a child that depends on a sibling of a higher wave, by the sibling’s annotation or its type’s wave', async () => {
    const byAnnotation = await validateOne('c.yaml', answering([pvc({ 'loom.dev/wave': '3' }), sts({ 'loom.dev/wave': '1', 'loom.dev/depends-on': 'PersistentVolumeClaim/data' })]));
    expect(byAnnotation.problems).toEqual([
      `${EXPRESSION}line 4, column 5: StatefulSet "db": loom.dev/depends-on: PersistentVolumeClaim/data is in wave 3, after this child's wave 1, so loom would fail every sync that returns them`,
    ]);
    const types = CHILD_TYPES.map((t) => (t.resource === 'persistentvolumeclaims' ? { ...t, wave: 2 } : t));
    const byType = await validateOne('c.yaml', answering([pvc(), sts({ 'loom.dev/depends-on': 'PersistentVolumeClaim/data' })], types));
    expect(byType.problems).toEqual([
      `${EXPRESSION}line 4, column 5: StatefulSet "db": loom.dev/depends-on: PersistentVolumeClaim/data is in wave 2, after this child's wave 0, so loom would fail every sync that returns them`,
    ]);
  });

  it('reports a cycle of literal siblings once, naming each child on it', async () => {
    const result = await validateOne('c.yaml', answering([
      pvc({ 'loom.dev/depends-on': 'StatefulSet/db' }),
      sts({ 'loom.dev/depends-on': 'Job/migrate' }),
      child('batch/v1', 'Job', 'migrate', { 'loom.dev/depends-on': 'PersistentVolumeClaim/data' }),
    ]));
    expect(result.problems).toEqual([
      `${EXPRESSION}line 3, column 5: PersistentVolumeClaim "data": loom.dev/depends-on: a cycle: PersistentVolumeClaim/data → StatefulSet/db → Job/migrate → PersistentVolumeClaim/data`,
    ]);
  });

  it('leaves a sibling with a computed wave, or a reference with a namespace, to a running loom', async () => {
    const expression = `{ "children": [
      { "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": { "name": "data", "annotations": { "loom.dev/wave": $string(parent.spec.wave) } } },
      { "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": { "name": "db", "annotations": { "loom.dev/depends-on": "PersistentVolumeClaim/data, StatefulSet/other/db" } } }
    ] }`;
    const types = CHILD_TYPES.map((t) => (t.resource === 'persistentvolumeclaims' ? { ...t, wave: 2 } : t));
    const result = await validateOne('c.yaml', composite({ childResources: types, hooks: { sync: { jsonata: { expression } } } }));
    expect(result).toMatchObject({ problems: [], warnings: [] });
  });

  it('says a loom.dev annotation near one loom reads is probably a typo', async () => {
    const result = await validateOne('c.yaml', answering([sts({ 'loom.dev/dependson': 'PersistentVolumeClaim/data', 'loom.dev/tenant': 'a' })]));
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([
      `warning: ${EXPRESSION}line 3, column 5: StatefulSet "db": loom.dev/dependson: not an annotation loom reads; ignored (did you mean loom.dev/depends-on?)`,
    ]);
  });

  it('reports a child that depends on itself', async () => {
    const result = await validateOne('c.yaml', answering([sts({ 'loom.dev/depends-on': 'StatefulSet/db' })]));
    expect(result.problems).toEqual([`${EXPRESSION}line 3, column 5: StatefulSet "db": loom.dev/depends-on: a cycle: StatefulSet/db → StatefulSet/db`]);
  });
});

describe('loom validate: loom.dev annotations of a DecoratorController\'s attachments', () => {
  const decorator = (annotations: Record<string, string>) => JSON.stringify({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata: { name: 'd' },
    spec: {
      resources: [{ apiVersion: 'apps/v1', resource: 'statefulsets' }],
      attachments: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { jsonata: { expression: `{\n  "attachments": [\n    ${child('v1', 'ConfigMap', 'info', annotations)}\n  ]\n}` } } },
    },
  });

  it('warns that order and policy annotations are ignored there, as Metacontroller ignores them', async () => {
    const result = await validateOne('d.yaml', decorator({ 'loom.dev/wave': '1', 'loom.dev/deletion-policy': 'Orphan', 'loom.dev/ready-when': 'true' }));
    expect(result.problems).toEqual([]);
    const at = 'warning: d.yaml: spec.hooks.sync.jsonata.expression: line 3, column 5: ConfigMap "info": ';
    expect(result.warnings).toEqual([
      `${at}loom.dev/wave: a DecoratorController ignores loom's order and policy annotations on attachments, as Metacontroller does`,
      `${at}loom.dev/deletion-policy: a DecoratorController ignores loom's order and policy annotations on attachments, as Metacontroller does`,
    ]);
  });
});
