import { testHook } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { crdRolesHook } from './hook.ts';

const crd = (name: string, group: string, plural: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name, annotations: { 'enable-default-roles': 'yes' } },
  spec: { group, scope: 'Namespaced', names: { plural, kind: 'Widget' } },
});

const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'widgets.acme.example-reader' } };

describe('crd-roles hooks', () => {
  const hook = testHook(crdRolesHook({ logger: false }));

  it.each([
    ['widgets.acme.example', 'acme.example', 'widgets'],
    ['gadgets.tools.loom.dev', 'tools.loom.dev', 'gadgets'],
  ])('gives %s a reader ClusterRole for its group and resource', async (name, group, plural) => {
    const { statusCode, body } = await hook.sync({ object: crd(name, group, plural), attachments: { 'ClusterRole.rbac.authorization.k8s.io/v1': {} } });
    expect(statusCode).toBe(200);
    expect(body).toEqual({
      attachments: [{
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
        metadata: { name: `${name}-reader`, labels: { 'app.kubernetes.io/managed-by': 'crd-roles' } },
        rules: [{ apiGroups: [group], resources: [plural], verbs: ['get', 'list', 'watch'] }],
      }],
    });
  });

  it('on finalize deletes the ClusterRole and waits while it is still there', async () => {
    const { body } = await hook.finalize({
      object: crd('widgets.acme.example', 'acme.example', 'widgets'),
      attachments: { 'ClusterRole.rbac.authorization.k8s.io/v1': { 'widgets.acme.example-reader': role } }, finalizing: true,
    });
    expect(body).toEqual({ attachments: [], finalized: false });
  });

  it('on finalize reports finalized once the ClusterRole is gone', async () => {
    const { body } = await hook.finalize({
      object: crd('widgets.acme.example', 'acme.example', 'widgets'), attachments: { 'ClusterRole.rbac.authorization.k8s.io/v1': {} }, finalizing: true,
    });
    expect(body).toEqual({ attachments: [], finalized: true });
  });

  it('answers 400 to a request without an object', async () => {
    expect(await hook.sync({ attachments: {} })).toMatchObject({ statusCode: 400, body: { error: 'request.object: is required' } });
  });
});
