import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { regularPlural, typeCatalog, typeFromDesired } from './render-types.ts';

function obj(apiVersion: string, kind: string, namespace?: string): KubeObject {
  return { apiVersion, kind, metadata: { name: 'x', ...(namespace ? { namespace } : {}) } };
}

const catSetCrd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'catzen.ctl.enisoc.com' },
  spec: { group: 'ctl.enisoc.com', scope: 'Cluster', names: { kind: 'CatSet', plural: 'catzen' }, versions: [{ name: 'v1' }] },
};

describe('regularPlural', () => {
  it.each([
    ['Pod', 'pods'], ['Policy', 'policies'], ['Gateway', 'gateways'], ['Box', 'boxes'], ['Status', 'statuses'], ['Match', 'matches'], ['CatSet', 'catsets'],
  ])('%s → %s', (kind, plural) => {
    expect(regularPlural(kind)).toBe(plural);
  });
});

describe('typeCatalog', () => {
  it('knows built-in types in any version', () => {
    const catalog = typeCatalog({ crds: [], examples: [] });
    expect(catalog.resolve({ apiVersion: 'apps/v1', resource: 'deployments' })).toEqual({ apiVersion: 'apps/v1', resource: 'deployments', kind: 'Deployment', namespaced: true });
    expect(catalog.resolve({ apiVersion: 'v1', resource: 'namespaces' })?.namespaced).toBe(false);
    expect(catalog.resolve({ apiVersion: 'autoscaling/v2', resource: 'horizontalpodautoscalers' })?.kind).toBe('HorizontalPodAutoscaler');
  });

  it('reads a CRD, irregular plural and scope included, for its served versions only', () => {
    const catalog = typeCatalog({ crds: [catSetCrd], examples: [] });
    expect(catalog.resolve({ apiVersion: 'ctl.enisoc.com/v1', resource: 'catzen' })).toEqual({ apiVersion: 'ctl.enisoc.com/v1', resource: 'catzen', kind: 'CatSet', namespaced: false });
    expect(catalog.resolve({ apiVersion: 'ctl.enisoc.com/v2', resource: 'catzen' })).toBeUndefined();
  });

  it('learns a type from an example object of that apiVersion whose kind is the regular plural', () => {
    const catalog = typeCatalog({ crds: [], examples: [obj('example.com/v1', 'Web'), obj('example.com/v1', 'Web', 'default'), obj('example.com/v2', 'Gadget')] });
    expect(catalog.resolve({ apiVersion: 'example.com/v1', resource: 'webs' })).toEqual({ apiVersion: 'example.com/v1', resource: 'webs', kind: 'Web', namespaced: true });
    expect(catalog.resolve({ apiVersion: 'example.com/v1', resource: 'gadgets' })).toBeUndefined();
  });

  it('prefers a CRD over the built-in table and the table over examples', () => {
    const podsCrd = { ...catSetCrd, spec: { group: '', scope: 'Namespaced', names: { kind: 'NotAPod', plural: 'pods' }, versions: [{ name: 'v1' }] } };
    expect(typeCatalog({ crds: [podsCrd], examples: [] }).resolve({ apiVersion: 'v1', resource: 'pods' })?.kind).toBe('NotAPod');
    expect(typeCatalog({ crds: [], examples: [obj('v1', 'Pods')] }).resolve({ apiVersion: 'v1', resource: 'pods' })?.kind).toBe('Pod');
  });
});

describe('typeFromDesired', () => {
  const rule = { apiVersion: 'example.com/v1', resource: 'gadgets' };

  it('takes the kind of a desired object and the namespace of it or its parent', () => {
    expect(typeFromDesired(rule, [obj('example.com/v1', 'Gadget')], obj('example.com/v1', 'Web', 'default'))).toEqual({ ...rule, kind: 'Gadget', namespaced: true });
    expect(typeFromDesired(rule, [obj('example.com/v1', 'Gadget')], obj('example.com/v1', 'Web'))).toEqual({ ...rule, kind: 'Gadget', namespaced: false });
  });

  it('finds nothing when no desired object fits', () => {
    expect(typeFromDesired(rule, [obj('example.com/v2', 'Gadget'), obj('example.com/v1', 'Widget')], obj('v1', 'Namespace'))).toBeUndefined();
  });
});
