import { describe, expect, it } from 'vitest';
import { checkReferences, ReferenceNotAllowedError } from './reference-policy.ts';

const token = { kind: 'Secret', namespace: 'kube-system', name: 'admin-token', setting: 'spec.hooks.sync.webhook.authorization.secretRef' } as const;
const expression = { kind: 'ConfigMap', namespace: 'loom-system', name: 'exprs', setting: 'spec.hooks.sync.jsonata.configMapRef' } as const;

describe('checkReferences', () => {
  it('with no namespace allowed, refuses every reference and says how to allow some', () => {
    expect(() => checkReferences([], [expression])).toThrow(new ReferenceNotAllowedError(
      'spec.hooks.sync.jsonata.configMapRef: ConfigMap loom-system/exprs is in namespace "loom-system"; --reference-namespaces allows no namespace ' +
      '(pass --reference-namespaces=<namespace>,… to allow some, or "*" for any)',
    ));
    expect(() => checkReferences([], [])).not.toThrow();
  });

  it('allows any namespace when asked to (--reference-namespaces=*)', () => {
    expect(() => checkReferences(undefined, [token, expression])).not.toThrow();
  });

  it('allows references inside the listed namespaces', () => {
    expect(() => checkReferences(['loom-system'], [expression])).not.toThrow();
  });

  it('refuses a reference outside them, naming its field path, object and the policy', () => {
    expect(() => checkReferences(['loom-system'], [token, expression])).toThrow(new ReferenceNotAllowedError(
      'spec.hooks.sync.webhook.authorization.secretRef: Secret kube-system/admin-token is in namespace "kube-system"; --reference-namespaces allows only "loom-system"',
    ));
  });
});
