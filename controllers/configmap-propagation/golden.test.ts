/**
 * Golden cases of the configmap-propagation hooks, as shipped in controller.yaml (see
 * `../golden.test-support.ts`), and what the sync expression promises beyond them.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/index.ts';
import { itAnswersEveryGolden, loadShelfController, withoutChildren } from '../golden.test-support.ts';

const shelf = loadShelfController(new URL('./', import.meta.url));

describe('configmap-propagation hooks', () => {
  itAnswersEveryGolden(shelf, ['customize.json', 'fresh.json', 'source-changed.json', 'source-missing.json', 'steady.json', 'target-removed.json']);

  it('asks for the same copies whether or not they already exist', async () => {
    const { request } = shelf.readGolden('steady.json');
    expect(Object.keys(request.children['ConfigMap.v1'] ?? {})).toHaveLength(2);
    const [withCopies, without] = await Promise.all([shelf.sync(request), shelf.sync(withoutChildren(request))]);
    expect(withCopies.children).toEqual(without.children);
    expect(withCopies.status).not.toEqual(without.status);
  });

  it('keeps the data of every observed copy in a target namespace while the source is missing', async () => {
    const { request } = shelf.readGolden('source-missing.json');
    expect(request.related['ConfigMap.v1']).toEqual({});
    const observed = Object.values(request.children['ConfigMap.v1'] ?? {});
    expect(observed.length).toBeGreaterThan(0);
    const kept = (await shelf.sync(request)).children;
    const contentOf = (cm: KubeObject) => ({ at: `${cm.metadata.namespace}/${cm.metadata.name}`, data: cm.data, binaryData: cm.binaryData, labels: cm.metadata.labels });
    expect(kept.map(contentOf)).toEqual(observed.map(contentOf));
  });
});
