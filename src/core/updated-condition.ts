/**
 * The `Updated` condition a rolling CompositeController sets on its parent (docs/hook-protocol.md,
 * "Rolling updates"): where the rollout of children to the latest ControllerRevision stands. Values and
 * wording are Metacontroller's (`rolling_update.go`), so dashboards and
 * `kubectl wait --for=condition=Updated` keep working.
 */
import type { JsonObject } from '../api/hook-wire.ts';
import type { Json } from '../api/object.ts';

/** `type` of the condition. */
export const UPDATED_CONDITION_TYPE = 'Updated';

/** Why the parent is, or is not yet, updated. */
export type UpdatedReason = 'OnLatestRevision' | 'RolloutProgressing' | 'RolloutWaiting';

/** The condition as written into `status.conditions`; no timestamps, as in Metacontroller. */
export interface UpdatedCondition {
  type: typeof UPDATED_CONDITION_TYPE;
  status: 'True' | 'False';
  reason: UpdatedReason;
  message: string;
}

/** Every rolling child is on the latest revision: `True`, "latest ControllerRevision: <name>". */
export function onLatestRevision(revisionName: string): UpdatedCondition {
  return { type: UPDATED_CONDITION_TYPE, status: 'True', reason: 'OnLatestRevision', message: `latest ControllerRevision: ${revisionName}` };
}

/** One child was moved to the latest revision in this sync: `False`, "updating <Kind> <name>". */
export function rolloutProgressing(kind: string, name: string): UpdatedCondition {
  return { type: UPDATED_CONDITION_TYPE, status: 'False', reason: 'RolloutProgressing', message: `updating ${kind} ${name}` };
}

/** The rollout is held: `False`, the message says which child it waits for and why. */
export function rolloutWaiting(why: string): UpdatedCondition {
  return { type: UPDATED_CONDITION_TYPE, status: 'False', reason: 'RolloutWaiting', message: why };
}

/** The hook's `status.conditions` is neither a list nor `null`; the sync fails, as in Metacontroller. */
export class StatusConditionsError extends Error {
  override readonly name = 'StatusConditionsError';
}

/** The condition as JSON; empty `reason`/`message` are left out, as Metacontroller's `Object()` does. */
function conditionJson(condition: UpdatedCondition): JsonObject & { type: string } {
  const json: JsonObject & { type: string } = { type: condition.type, status: condition.status };
  if (condition.reason) json.reason = condition.reason;
  if (condition.message) json.message = condition.message;
  return json;
}

function isConditionOfType(item: Json, type: string): boolean {
  return item !== null && typeof item === 'object' && !Array.isArray(item) && item.type === type;
}

/**
 * A copy of the latest revision's hook `status` (`null`/absent ⇒ `{}`) with `condition` in
 * `status.conditions`: it replaces the first entry of the same type, or is appended (a missing or `null`
 * list starts empty). Other conditions are kept as the hook wrote them, in their order.
 *
 * Differs from Metacontroller on purpose in two corner cases: Metacontroller loses the replacement when
 * the hook itself already returned an `Updated` condition (it edits a copy of the list), and crashes on
 * a `null` hook status.
 * @throws StatusConditionsError when `status.conditions` is neither a list nor `null`.
 */
export function withUpdatedCondition(status: Readonly<JsonObject> | null | undefined, condition: UpdatedCondition): JsonObject {
  return withCondition(status, conditionJson(condition));
}

/**
 * A copy of `status` (`null`/absent ⇒ `{}`) with `condition` in `status.conditions`, replacing the first
 * entry of its type or appended; the other entries kept as they are, in their order.
 * @throws StatusConditionsError when `status.conditions` is neither a list nor `null`.
 */
export function withCondition(status: Readonly<JsonObject> | null | undefined, condition: JsonObject & { type: string }): JsonObject {
  const result: JsonObject = status ? structuredClone(status as JsonObject) : {};
  const current = result.conditions ?? null;
  if (current !== null && !Array.isArray(current)) {
    throw new StatusConditionsError(`status.conditions must be a list to hold the ${condition.type} condition`);
  }
  const conditions = current ?? [];
  const at = conditions.findIndex((item) => isConditionOfType(item, condition.type));
  if (at < 0) conditions.push(condition);
  else conditions[at] = condition;
  result.conditions = conditions;
  return result;
}
