import { describe, expect, it } from 'vitest';
import { groupProblem, kebabCase, kindProblem, scaffoldNames, versionProblem } from './init-names.ts';

describe('scaffold names', () => {
  it('derives every name from the kind, group and version', () => {
    expect(scaffoldNames({ kind: 'WebApp', group: 'example.com', version: 'v1alpha1' })).toEqual({
      kind: 'WebApp',
      group: 'example.com',
      version: 'v1alpha1',
      plural: 'webapps',
      singular: 'webapp',
      apiVersion: 'example.com/v1alpha1',
      crdName: 'webapps.example.com',
      kebab: 'web-app',
      camel: 'webApp',
      controllerName: 'web-app-controller',
      sampleName: 'web-app-sample',
    });
  });

  it('makes the plural as the API server does', () => {
    expect(scaffoldNames({ kind: 'Policy', group: 'example.com', version: 'v1' }).plural).toBe('policies');
    expect(scaffoldNames({ kind: 'Box', group: 'example.com', version: 'v1' }).plural).toBe('boxes');
  });

  it.each([
    ['Website', 'website'],
    ['WebApp', 'web-app'],
    ['HTTPRoute', 'http-route'],
    ['Route53Zone', 'route53-zone'],
  ])('writes %s as %s in kebab case', (kind, kebab) => {
    expect(kebabCase(kind)).toBe(kebab);
  });

  it('camel-cases a kind with an acronym for TypeScript identifiers', () => {
    expect(scaffoldNames({ kind: 'HTTPRoute', group: 'example.com', version: 'v1' }).camel).toBe('httpRoute');
  });
});

describe('name checks', () => {
  it.each(['Website', 'WebApp', 'Route53Zone', 'X'])('accepts the kind %s', (kind) => {
    expect(kindProblem(kind)).toBeUndefined();
  });

  it.each(['', '1Website', 'Web-App', 'Web_App', 'Web App', 'Wébsite'])('rejects the kind %j', (kind) => {
    expect(kindProblem(kind)).toMatch(/^--kind: ".*" is not a kind: .*UpperCamelCase like Website$/);
  });

  it('suggests the capitalised kind for a lower-case one', () => {
    expect(kindProblem('webApp')).toContain('(did you mean WebApp?)');
  });

  it('rejects a kind whose plural the API server would refuse as too long', () => {
    expect(kindProblem(`W${'a'.repeat(61)}`)).toBeUndefined();
    expect(kindProblem(`W${'a'.repeat(62)}`)).toMatch(/^--kind: ".*" is too long: its plural ".*s" has more than 63 characters$/);
  });

  it.each(['example.com', 'apps.loom.dev', 'a-b.c1'])('accepts the group %s', (group) => {
    expect(groupProblem(group)).toBeUndefined();
  });

  it.each(['example', 'Example.com', '-a.com', 'a..com', 'a.com.', `${'a'.repeat(250)}.com`])('rejects the group %j', (group) => {
    expect(groupProblem(group)).toMatch(/^--group: ".*" is not an API group/);
  });

  it.each(['v1', 'v2', 'v1alpha1', 'v2beta3', 'v10'])('accepts the version %s', (version) => {
    expect(versionProblem(version)).toBeUndefined();
  });

  it.each(['1', 'v0', 'V1', 'v1.0', 'v1alpha', 'v1gamma1', 'v1beta0'])('rejects the version %j', (version) => {
    expect(versionProblem(version)).toMatch(/^--version: ".*" is not an API version such as v1, v1alpha1 or v2beta1$/);
  });
});
