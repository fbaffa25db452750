/**
 * Golden cases of the ready-made controllers in `controllers/<name>/`. Each folder's
 * `testdata/*.json` holds `{ request, response }`: a hook request and the exact response the shipped
 * expression must return for it — `customize*.json` for the customize hook, the others for sync.
 * The expressions are read from the folder's controller.yaml and compiled by loom's own runner, so
 * the cases test what `kubectl apply` deploys.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { expect, it } from 'vitest';
import type { CompositeHookRequest, JsonObject, KubeObject, ObjectMap } from '../src/api/index.ts';
import { systemClock } from '../src/engine/index.ts';
import { compileJsonataHook, type HookRunner } from '../src/hooks/index.ts';

/** The hooks a shelf controller may give as JSONata. */
export type ShelfHook = 'customize' | 'sync';

/** What a shelf sync expression returns: the desired children and, for most, the parent's status. */
export interface SyncAnswer {
  children: KubeObject[];
  status?: JsonObject;
}

/**
 * One golden case: a hook request and the response the expression must return for it. Typed as a
 * sync case; a customize case (`customize*.json`) has other fields, so only its fields as a whole
 * are compared.
 */
export interface Golden {
  request: CompositeHookRequest;
  response: SyncAnswer;
}

/** A shelf controller's hooks and golden cases. */
export interface ShelfController {
  /** The golden files in `testdata/`, sorted by name. */
  goldens(): string[];
  /** The parsed golden `file` of `testdata/`. */
  readGolden(file: string): Golden;
  /** The hook a golden file is for: `customize*.json` → customize, any other → sync. */
  hookOf(file: string): ShelfHook;
  /** The shipped expression of `hook`, compiled once. */
  runner(hook: ShelfHook): HookRunner;
  /** Runs the shipped sync expression on `request`; the answer is not decoded, only cast. */
  sync(request: CompositeHookRequest): Promise<SyncAnswer>;
}

interface ControllerManifest {
  spec: { hooks: Partial<Record<ShelfHook, { jsonata: { expression: string } }>> };
}

/** Reads the controller.yaml and testdata of the shelf folder at `folder` (a URL ending in `/`). */
export function loadShelfController(folder: URL): ShelfController {
  const manifest = load(readFileSync(new URL('controller.yaml', folder), 'utf8')) as ControllerManifest;
  const testdata = new URL('testdata/', folder);
  const runners = new Map<ShelfHook, HookRunner>();
  const runner = (hook: ShelfHook): HookRunner => {
    const compiled = runners.get(hook) ?? compileShipped(manifest, hook);
    runners.set(hook, compiled);
    return compiled;
  };
  return {
    goldens: () => readdirSync(testdata).filter((f) => f.endsWith('.json')).sort(),
    readGolden: (file) => JSON.parse(readFileSync(new URL(file, testdata), 'utf8')) as Golden,
    hookOf: (file) => (file.startsWith('customize') ? 'customize' : 'sync'),
    runner,
    sync: async (request) => (await runner('sync').call(request, neverAborted())) as SyncAnswer,
  };
}

function compileShipped(manifest: ControllerManifest, hook: ShelfHook): HookRunner {
  const expression = manifest.spec.hooks[hook]?.jsonata.expression;
  if (expression === undefined) throw new Error(`the shipped controller has no JSONata ${hook} hook`);
  // The golden cases are about results, not time: a budget no case comes near even where the process
  // waits seconds for a core, which still ends a runaway (evaluation holds the event loop, so no test
  // timeout could).
  return compileJsonataHook({ expression, hook, timeoutMs: 30_000, clock: systemClock });
}

/**
 * Registers, in the enclosing `describe`, a test that the folder holds exactly `expectedFiles` (so a
 * golden file cannot go missing unnoticed) and one test per golden file that its hook answers its
 * request with its response.
 */
export function itAnswersEveryGolden(shelf: ShelfController, expectedFiles: readonly string[]): void {
  it('has its golden cases', () => {
    expect(shelf.goldens()).toEqual(expectedFiles);
  });

  it.each(shelf.goldens())('answers %s with its golden response', async (file) => {
    const golden = shelf.readGolden(file);
    expect(await shelf.runner(shelf.hookOf(file)).call(golden.request, neverAborted())).toEqual(golden.response);
  });
}

/** How many objects `children` holds, over all types. */
export function countObjects(children: ObjectMap): number {
  return Object.values(children).reduce((n, byName) => n + Object.keys(byName).length, 0);
}

/** `request` as if none of its children existed yet: every child type kept, with no object. */
export function withoutChildren(request: CompositeHookRequest): CompositeHookRequest {
  return { ...request, children: Object.fromEntries(Object.keys(request.children).map((type) => [type, {}])) };
}

function neverAborted(): AbortSignal {
  return new AbortController().signal;
}
