/**
 * The hello example's sync hook: a HelloWorld parent gets one ConfigMap with a greeting, and its
 * status reports the greeting once the ConfigMap exists. `loom dev` serves it in-process (`helloHook`).
 *
 * Run alone with `node examples/hello/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import { createHookServer, desired, observedChild, type HookServer, type HookServerOptions } from 'kube-loom-sdk';
// Generated from crd.yaml and controller.yaml by `loom types` (its first line is the command); src/cli/types.test.ts
// checks that it is up to date.
import type { HelloControllerRequest, HelloControllerResponse } from './types.ts';

/**
 * The hook's answer for one parent (v1 or v2 object keys alike). The response type lets `desired()`
 * check the ConfigMap's fields, and only the controller's child types may be returned.
 */
export function helloSync(request: HelloControllerRequest): HelloControllerResponse {
  const name = `${request.parent.metadata.name}-greeting`;
  const greeting = `Hello, ${request.parent.spec?.who ?? 'world'}!`;
  return {
    status: { greeting, ready: observedChild(request, 'ConfigMap.v1', name) !== undefined },
    children: [desired({ apiVersion: 'v1', kind: 'ConfigMap', name, data: { greeting } })],
  };
}

/** A hook server answering `POST /sync`; `logger` defaults to the SDK's own (pino at info). */
export function helloHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, composite: { sync: helloSync } });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => helloHook({ logger: false });

if (import.meta.main) {
  await helloHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
