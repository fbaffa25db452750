// Type-checked against the installed package's .d.ts files: a typo in a field or a wrong answer shape
// would fail `tsc`.
import { createHookServer, desired, type CompositeRequest, type CompositeResponse, type KubeObject } from 'kube-loom-sdk';

interface HelloWorld extends KubeObject {
  spec?: { who?: string };
}

export function sync(request: CompositeRequest<HelloWorld, 'ConfigMap.v1'>): CompositeResponse {
  const name = `${request.parent.metadata.name}-greeting`;
  return { children: [desired({ apiVersion: 'v1', kind: 'ConfigMap', name, data: { greeting: `Hello, ${request.parent.spec?.who ?? 'world'}!` } })] };
}

export const server = createHookServer({ logger: false, composite: { sync } });
