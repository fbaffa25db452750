import { describe, expect, it } from 'vitest';
import { checkReferences, ReferenceNotAllowedError } from './reference-policy.ts';

const token = { kind: 'Secret', namespace: 'kube-system', name: 'admin-token', setting: 'spec.hooks.sync.webhook.authorization.secretRef' } as const;
const expression = { kind: 'ConfigMap', namespace: 'loom-system', name: 'exprs', setting: 'spec.hooks.sync.jsonata.configMapRef' } as const;

describe('checkReferences', () => {
  it('allows any namespace when no policy is set', () => {
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
