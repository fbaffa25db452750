/**
 * loom's API layer: the controller resources and their validation, the hook wire protocol and the
 * exact strings shared with Metacontroller. Pure: no I/O, no internal imports.
 */
export * from './object.ts';
export * from './label-selector.ts';
export { selectorsDisjoint } from './selector-overlap.ts';
export * from './well-known.ts';
export { closestMatch } from './did-you-mean.ts';
export { LruMap } from './lru-map.ts';
export { InvalidDurationError, parseDuration } from './duration.ts';
export * from './controller-spec.ts';
export type { ControllerRevision, ControllerRevisionChildren } from './controller-revision.ts';
export { formatProblem, type FieldProblem } from './field-reader.ts';
export { canonicalJson, compareStrings, isRecord, jsonEqual } from './json-value.ts';
export { parseCompositeController, parseDecoratorController, type ParseResult } from './parse-controller.ts';
export { buildKeyedMap, buildObjectMap, objectMapKey, typeKey, type BuildObjectMapOptions, type KeyedMap, type ObjectMap, type TypeRef } from './object-map.ts';
export {
  HookResponseError,
  compositeRequest,
  customizeRequest,
  decodeCompositeResponse,
  decodeCustomizeResponse,
  decodeDecoratorResponse,
  decoratorRequest,
  HOOK_TIMEOUT_HEADER,
  type CompositeHookRequest,
  type CompositeHookResponse,
  type CompositeRequestInput,
  type CustomizeHookRequest,
  type CustomizeHookResponse,
  type DecodedResponse,
  type DecoratorHookRequest,
  type DecoratorHookResponse,
  type DecoratorRequestInput,
  type JsonObject,
  type RelatedResourceRule,
  type TypedObjects,
} from './hook-wire.ts';
export type { ObjectReadiness, ReadinessMap } from './request-readiness.ts';
export { effectiveWebhookAuth, matchEndpointConfig, setsWebhookAuth, type EffectiveWebhookAuth } from './endpoint-match.ts';
export { boundedJoin, boundedStack, boundedText, MAX_MESSAGE_CHARS } from './bounded-text.ts';
export * from './child-annotations.ts';
export { READINESS_STATUSES, isReady, readinessOf, type Readiness, type ReadinessOptions, type ReadinessStatus } from './readiness/index.ts';
