/**
 * Golden cases of the namespace-defaults sync expression, as shipped in controller.yaml (see
 * `../golden.test-support.ts`), and what it promises beyond them.
 */
import { describe, expect, it } from 'vitest';
import { countObjects, itAnswersEveryGolden, loadShelfController, withoutChildren } from '../golden.test-support.ts';

const shelf = loadShelfController(new URL('./', import.meta.url));

describe('namespace-defaults sync expression', () => {
  itAnswersEveryGolden(shelf, ['defaults.json', 'observed-children.json', 'partial-annotations.json', 'quota-annotations.json']);

  it('gives the same answer whether or not the children already exist', async () => {
    const { request } = shelf.readGolden('observed-children.json');
    expect(countObjects(request.children)).toBe(3);
    expect(await shelf.sync(request)).toEqual(await shelf.sync(withoutChildren(request)));
  });
});
