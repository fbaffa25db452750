/**
 * Golden cases of the tenant sync expression, as shipped in controller.yaml (see
 * `../golden.test-support.ts`), and what it promises beyond them.
 */
import { describe, expect, it } from 'vitest';
import { countObjects, itAnswersEveryGolden, loadShelfController, withoutChildren } from '../golden.test-support.ts';

const shelf = loadShelfController(new URL('./', import.meta.url));

describe('tenant sync expression', () => {
  itAnswersEveryGolden(shelf, ['fresh.json', 'no-admins.json', 'observed-active.json', 'sanitised-name.json', 'terminating.json']);

  it('asks for the same children whether or not they already exist', async () => {
    const { request } = shelf.readGolden('observed-active.json');
    expect(countObjects(request.children)).toBe(3);
    const [withChildren, without] = await Promise.all([shelf.sync(request), shelf.sync(withoutChildren(request))]);
    expect(withChildren.children).toEqual(without.children);
    expect(withChildren.status).not.toEqual(without.status);
  });
});
