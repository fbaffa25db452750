/**
 * loom's memory of its last server-side apply per child, and the key a child has in it: what lets a
 * sync skip the apply of a child that is as loom left it (`core/applied-fingerprint.ts`).
 */
import type { AppliedRecord, ChildRef } from '../core/index.ts';

/** loom's memory of its last server-side apply per child (see `core/applied-fingerprint.ts`). */
export interface AppliedRecords {
  get(child: string): AppliedRecord | undefined;
  set(child: string, record: AppliedRecord): void;
  delete(child: string): void;
}

/** The key of a child in {@link AppliedRecords}. */
export function childKey(child: ChildRef): string {
  return `${child.apiVersion}/${child.kind}/${child.namespace}/${child.name}`;
}
