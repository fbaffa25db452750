/**
 * Claims a parent's children for one sync (docs/concepts.md, "Claiming and adoption"): its controlled
 * children plus adoptable orphans, from the stores' owner and orphan indexes; then adopts and releases
 * through the API. A failed adoption or release is logged and skipped: the next sync tries again.
 */
import type { ChildPolicies, KubeObject, LabelSelector } from '../../api/index.ts';
import { adoptedChild, childRefOf, claimChildren, releasedChild } from '../../core/index.ts';
import { childKey } from '../../apply/index.ts';
import type { ChildType, CompositeContext } from './context.ts';

/** A type whose objects a parent claims: a child type (with its rule), or ControllerRevisions. */
type ClaimedType = Pick<ChildType, 'type' | 'store'> & { rule?: ChildPolicies };

/** `adopt` of a child type's rule; ControllerRevisions have no rule and are adopted as Metacontroller does. */
const adoptOf = (type: ClaimedType) => type.rule?.adopt;

/** The objects of `types` this sync may show the hook and manage: its children, or its ControllerRevisions. */
export async function claimForParent(
  ctx: CompositeContext, parent: KubeObject, selector: LabelSelector, types: readonly ClaimedType[],
): Promise<KubeObject[]> {
  const namespace = ctx.parentType.namespaced ? parent.metadata.namespace : undefined;
  const claimed: KubeObject[] = [];
  let parentConfirmed: boolean | undefined;
  for (const child of types) {
    const owned = child.store.byControllerUid(parent.metadata.uid ?? '');
    const orphans = child.store.orphans(child.type.namespaced ? namespace : undefined);
    const result = claimChildren({ parent, selector, candidates: [...owned, ...orphans], adopt: adoptOf(child) });
    claimed.push(...result.claimed);
    for (const orphan of result.adopt) {
      // Adopt only after an uncached read confirms the parent still exists and is not being deleted.
      parentConfirmed ??= await confirmParent(ctx, parent);
      if (!parentConfirmed) break;
      const adopted = await write(ctx, 'adopt', adoptedChild({ parent, child: orphan }));
      if (adopted) claimed.push(adopted);
    }
    for (const stale of result.release) {
      // Its apply record must not vouch for it any more: if the hook still wants it, apply it again.
      ctx.records.delete(childKey(childRefOf(stale)));
      await write(ctx, 'release', releasedChild({ parent, child: stale }));
    }
  }
  return claimed;
}

async function confirmParent(ctx: CompositeContext, parent: KubeObject): Promise<boolean> {
  const fresh = await ctx.host.writer.get({
    apiVersion: parent.apiVersion, kind: parent.kind, namespace: parent.metadata.namespace, name: parent.metadata.name ?? '',
  });
  return fresh !== undefined && fresh.metadata.uid === parent.metadata.uid && !fresh.metadata.deletionTimestamp;
}

async function write(ctx: CompositeContext, what: 'adopt' | 'release', child: KubeObject | undefined): Promise<KubeObject | undefined> {
  if (!child) return undefined;
  try {
    const written = await ctx.host.writer.replace(child);
    ctx.host.metrics.applied(ctx.labels, what);
    return written;
  } catch (err) {
    ctx.logger.warn({ err, child: `${child.kind} ${child.metadata.namespace ?? ''}/${child.metadata.name ?? ''}` }, `could not ${what} child`);
    return undefined;
  }
}
