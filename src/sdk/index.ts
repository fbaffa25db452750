/**
 * `kube-loom-sdk`: write a Metacontroller/loom hook as a few lines of TypeScript on fastify, and test it
 * without a socket.
 *
 * ```ts
 * const server = createHookServer({ composite: { sync: (request) => ({ children: [...], status: {...} }) } });
 * await server.listen({ host: '0.0.0.0', port: 8080 });
 * ```
 * Imports only `api` (the wire types) and fastify/pino; nothing in loom itself imports the SDK.
 */
export type {
  CompositeRequest,
  CompositeResponse,
  CustomizeRequest,
  CustomizeResponse,
  DecoratorRequest,
  DecoratorResponse,
  HookHandler,
  HookResult,
  KubeObject,
  LabelSelector,
  ObjectMeta,
  ObjectReadiness,
  ObservedObjects,
  OwnerReference,
  ReadinessMap,
  ReadinessStatus,
  RelatedResourceRule,
} from './types.ts';
export type { HookCall } from './hook-call.ts';
export { typeKey } from '../api/index.ts';
export { createHookServer, type HookServer, type HookServerOptions, type ListenOptions } from './hook-server.ts';
export { DEFAULT_HEADERS_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, type ServerTimeouts } from './server-timeouts.ts';
export {
  DEFAULT_BODY_LIMIT, hooks, type CompositeHooks, type DecoratorHooks, type HookPaths, type HookPlacement, type HooksOptions,
} from './hooks-plugin.ts';
export { HookAnswerError, isExposed } from './hook-answer-error.ts';
export { attachmentsOf, childrenOf, observedChild, observedReadiness, observedRelated, relatedOf, type ObservedRequest } from './observed.ts';
export { desired, type DesiredObject, type DesiredOf } from './desired.ts';
export { testHook, type HookAnswer, type HookAnswerBody, type HookTester, type TestHookOptions } from './test-hook.ts';
