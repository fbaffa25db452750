/**
 * Golden cases of the secret-replicator hooks, as shipped in controller.yaml (see
 * `../golden.test-support.ts`), and what the sync expression promises beyond them.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.ts';
import { itAnswersEveryGolden, loadShelfController, withoutChildren } from '../golden.test-support.ts';

const shelf = loadShelfController(new URL('./', import.meta.url));
const syncGoldens = shelf.goldens().filter((file) => shelf.hookOf(file) === 'sync');

describe('secret-replicator hooks', () => {
  itAnswersEveryGolden(shelf, [
    'customize.json', 'fresh.json', 'namespace-unselected.json', 'retyped.json', 'source-changed.json', 'source-missing.json', 'steady.json',
  ]);

  it('asks for the same copies whether or not they already exist', async () => {
    const { request } = shelf.readGolden('steady.json');
    expect(Object.keys(request.children['Secret.v1'] ?? {})).toHaveLength(2);
    const [withCopies, without] = await Promise.all([shelf.sync(request), shelf.sync(withoutChildren(request))]);
    expect(withCopies.children).toEqual(without.children);
    expect(withCopies.status).not.toEqual(without.status);
  });

  it('keeps the type and data of every observed copy in a selected namespace while the source is missing', async () => {
    const { request } = shelf.readGolden('source-missing.json');
    expect(request.related['Secret.v1']).toEqual({});
    const observed = Object.values(request.children['Secret.v1'] ?? {});
    expect(observed.length).toBeGreaterThan(0);
    const kept = (await shelf.sync(request)).children;
    const contentOf = (s: KubeObject) => ({ at: `${s.metadata.namespace}/${s.metadata.name}`, type: s.type, data: s.data, labels: s.metadata.labels });
    expect(kept.map(contentOf)).toEqual(observed.map(contentOf));
  });

  it.each(syncGoldens)('puts no secret value into the status of %s', async (file) => {
    const { request } = shelf.readGolden(file);
    const secrets = [...Object.values(request.related['Secret.v1'] ?? {}), ...Object.values(request.children['Secret.v1'] ?? {})];
    const values = secrets.flatMap((s) => Object.values((s.data ?? {}) as Record<string, string>));
    expect(values.length).toBeGreaterThan(0);
    const status = JSON.stringify((await shelf.sync(request)).status);
    for (const value of values) expect(status).not.toContain(value);
  });
});
