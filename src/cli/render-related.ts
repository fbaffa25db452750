/**
 * Related objects offline (docs/hook-protocol.md, "Customize and related objects"): the customize hook
 * is asked which objects the parent needs, and its rules pick from the objects given with `--related`
 * instead of from watches — with loom's own rule checks and selection (`relatedSelection`, `selects`). A
 * namespace selector reads the labels of the Namespace objects in `--related`; a namespace not given
 * there has no labels, so its objects are not picked, as in loom before the namespace is cached.
 */
import {
  customizeRequest, decodeCustomizeResponse, objectKey, responseModeOf,
  type Hook, type KubeObject, type RelatedResourceRule, type TypedObjects,
} from '../api/index.ts';
import { relatedSelection, selects, type NamespaceLabels } from '../core/index.ts';
import type { HookRunner } from '../hooks/index.ts';
import { hookFailure } from './render-hook-call.ts';
import type { ResolvedType, TypeCatalog } from './render-types.ts';

/** What the customize step needs. */
export interface RelatedInput {
  /** The controller object, sent as `controller`. */
  controller: KubeObject;
  /** The parent (a decorator's target), sent as `parent`. */
  parent: KubeObject;
  hook: Hook;
  runner: HookRunner;
  /** The `--related` objects. */
  objects: readonly KubeObject[];
  catalog: TypeCatalog;
  signal: AbortSignal;
}

/** The related objects for the sync request, and what to tell the user. */
export interface RelatedResult {
  typed: TypedObjects;
  /** `Kind namespace/name` of each object picked, in `--related` order. */
  picked: string[];
  notes: string[];
}

function describe(obj: KubeObject): string {
  return `${obj.kind} ${objectKey(obj.metadata.namespace, obj.metadata.name ?? '')}`;
}

function namespaceLabelsOf(objects: readonly KubeObject[]): NamespaceLabels {
  const namespaces = objects.filter((obj) => obj.apiVersion === 'v1' && obj.kind === 'Namespace');
  return (namespace) => {
    const found = namespaces.find((ns) => ns.metadata.name === namespace);
    return found && (found.metadata.labels ?? {});
  };
}

async function askCustomize(input: RelatedInput): Promise<RelatedResourceRule[]> {
  try {
    const raw = await input.runner.call(customizeRequest({ controller: input.controller, parent: input.parent }), input.signal);
    return decodeCustomizeResponse(raw, responseModeOf(input.hook)).response.relatedResources;
  } catch (error) {
    throw hookFailure('customize', error);
  }
}

/** The objects one rule picks; throws a hook failure for a rule that breaks the selection rules. */
function pick(input: RelatedInput, rule: RelatedResourceRule, type: ResolvedType): KubeObject[] {
  let selection;
  try {
    selection = relatedSelection(rule, { version: input.hook.version, parentNamespace: input.parent.metadata.namespace, namespaced: type.namespaced });
  } catch (error) {
    throw hookFailure('customize', error);
  }
  const labels = namespaceLabelsOf(input.objects);
  return input.objects.filter((obj) => obj.apiVersion === type.apiVersion && obj.kind === type.kind && selects(selection, obj, labels));
}

/** Calls the customize hook and applies its rules to the `--related` objects. */
export async function relatedObjects(input: RelatedInput): Promise<RelatedResult> {
  const rules = await askCustomize(input);
  const picked = new Set<KubeObject>();
  const declaredTypes: ResolvedType[] = [];
  const notes: string[] = [];
  for (const rule of rules) {
    const type = input.catalog.resolve(rule);
    if (!type) {
      notes.push(`customize hook: the kind of ${rule.resource}.${rule.apiVersion} is unknown (no CRD with the controller, no such object in --related); the sync hook sees none`);
      continue;
    }
    declaredTypes.push(type);
    for (const obj of pick(input, rule, type)) picked.add(obj);
  }
  // In --related order, as a cache lists them; an object picked by two rules appears once.
  const objects = input.objects.filter((obj) => picked.has(obj));
  return { typed: { objects, declaredTypes }, picked: objects.map(describe), notes };
}
