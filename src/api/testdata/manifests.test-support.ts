/** Minimal valid controller manifests for table tests. */

/** The smallest valid CompositeController; tests change one field at a time. */
export const minimalComposite = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1',
  kind: 'CompositeController',
  metadata: { name: 'widgets' },
  spec: {
    parentResource: { apiVersion: 'example.com/v1', resource: 'widgets' },
    childResources: [{ apiVersion: 'v1', resource: 'pods' }],
    hooks: { sync: { webhook: { url: 'http://widgets.hooks/sync' } } },
  },
};

/** The smallest valid DecoratorController. */
export const minimalDecorator = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1',
  kind: 'DecoratorController',
  metadata: { name: 'decorate' },
  spec: {
    resources: [{ apiVersion: 'apps/v1', resource: 'statefulsets' }],
    hooks: { sync: { jsonata: { expression: '{}' } } },
  },
};
