// A user's hook written on the installed kube-loom-sdk, in JavaScript so that Node 20 runs it too.
import { createHookServer, desired, observedChild } from 'kube-loom-sdk';

export function sync(request) {
  const name = `${request.parent.metadata.name}-greeting`;
  const greeting = `Hello, ${request.parent.spec?.who ?? 'world'}!`;
  return {
    status: { greeting, ready: observedChild(request, 'ConfigMap.v1', name) !== undefined },
    children: [desired({ apiVersion: 'v1', kind: 'ConfigMap', name, data: { greeting } })],
  };
}

export function hookServer(options = {}) {
  return createHookServer({ ...options, composite: { sync } });
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  await hookServer({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
