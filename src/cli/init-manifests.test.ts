/**
 * The Ready column of a `loom init` scaffold: a CompositeController opts in to loom's Ready condition
 * (docs/ordering-and-readiness.md), and its CRD shows that condition and keeps it in its status schema.
 * A DecoratorController writes no Ready condition, so its scaffold shows the hook's `ready` field.
 */
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { controllerYaml, crdYaml } from './init-manifests.ts';
import { scaffoldNames, type ControllerKind, type Scaffold } from './init-names.ts';

const scaffold = (controller: ControllerKind): Scaffold => ({
  names: scaffoldNames({ kind: 'WebApp', group: 'example.com', version: 'v1alpha1' }),
  hook: 'jsonata',
  controller,
});

interface Crd {
  spec: { versions: { additionalPrinterColumns: { name: string; type: string; jsonPath: string }[]; schema: { openAPIV3Schema: { properties: { status: Schema } } } }[] };
}
interface Schema {
  type?: string;
  required?: string[];
  enum?: string[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

const versionOf = (controller: ControllerKind) => (load(crdYaml(scaffold(controller))) as Crd).spec.versions[0]!;
const controllerSpec = (controller: ControllerKind) => (load(controllerYaml(scaffold(controller))) as { spec: Record<string, unknown> }).spec;

describe('loom init: the Ready column', () => {
  it('a CompositeController opts in to loom’s Ready condition', () => {
    expect(controllerSpec('composite').readyCondition).toBe(true);
  });

  it('its CRD shows the Ready condition’s status as the Ready column', () => {
    expect(versionOf('composite').additionalPrinterColumns[0]).toEqual({ name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' });
  });

  it('its status schema keeps standard conditions, one per type', () => {
    const conditions = versionOf('composite').schema.openAPIV3Schema.properties.status.properties?.conditions;
    expect(conditions).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
    const item = conditions?.items ?? {};
    const fields = item.properties ?? {};
    expect(item.required).toEqual(['type', 'status']);
    expect(Object.keys(fields)).toEqual(['type', 'status', 'reason', 'message', 'observedGeneration', 'lastTransitionTime']);
    expect(fields.status).toMatchObject({ type: 'string', enum: ['True', 'False', 'Unknown'] });
    expect(fields.lastTransitionTime).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('a DecoratorController, which has no Ready condition, shows the hook’s ready field', () => {
    expect(controllerSpec('decorator')).not.toHaveProperty('readyCondition');
    expect(versionOf('decorator').additionalPrinterColumns[0]).toEqual({ name: 'Ready', type: 'boolean', jsonPath: '.status.ready' });
    expect(versionOf('decorator').schema.openAPIV3Schema.properties.status.properties).not.toHaveProperty('conditions');
  });
});
