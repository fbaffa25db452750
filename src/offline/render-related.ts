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

/**
 * Where related objects come from, once the customize hook has named their types: `loom render`'s
 * `--related` file, or `loom plan`'s cluster (listed type by type).
 */
export type RelatedSource = (types: readonly ResolvedType[]) => Promise<readonly KubeObject[]>;

/** What the customize step needs. */
export interface RelatedInput {
  /** The controller object, sent as `controller`. */
  controller: KubeObject;
  /** The parent (a decorator's target), sent as `parent`. */
  parent: KubeObject;
  hook: Hook;
  runner: HookRunner;
  /** The objects the rules pick from. */
  source: RelatedSource;
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
function pick(input: RelatedInput, objects: readonly KubeObject[], rule: RelatedResourceRule, type: ResolvedType): KubeObject[] {
  let selection;
  try {
    selection = relatedSelection(rule, { version: input.hook.version, parentNamespace: input.parent.metadata.namespace, namespaced: type.namespaced });
  } catch (error) {
    throw hookFailure('customize', error);
  }
  const labels = namespaceLabelsOf(objects);
  return objects.filter((obj) => obj.apiVersion === type.apiVersion && obj.kind === type.kind && selects(selection, obj, labels));
}

/** Namespaces, whose labels a namespace selector reads. */
const NAMESPACES: ResolvedType = { apiVersion: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };

/** Calls the customize hook and applies its rules to the objects of the types they name. */
export async function relatedObjects(input: RelatedInput): Promise<RelatedResult> {
  const rules = await askCustomize(input);
  const notes: string[] = [];
  const typed = rules.flatMap((rule) => {
    const type = input.catalog.resolve(rule);
    if (type) return [{ rule, type }];
    notes.push(`customize hook: the kind of ${rule.resource}.${rule.apiVersion} is unknown (no CRD with the controller, no such object in --related); the sync hook sees none`);
    return [];
  });
  const declaredTypes = typed.map(({ type }) => type);
  const needsNamespaces = typed.some(({ rule }) => rule.namespaceSelector !== undefined);
  const available = await input.source(needsNamespaces ? [...declaredTypes, NAMESPACES] : declaredTypes);
  const picked = new Set<KubeObject>();
  for (const { rule, type } of typed) for (const obj of pick(input, available, rule, type)) picked.add(obj);
  // In the source's order, as a cache lists them; an object picked by two rules appears once.
  const objects = available.filter((obj) => picked.has(obj));
  return { typed: { objects, declaredTypes }, picked: objects.map(describe), notes };
}
