/**
 * Golden cases of the web-app sync expression, as shipped in controller.yaml (see
 * `../golden.test-support.ts`).
 */
import { describe } from 'vitest';
import { itAnswersEveryGolden, loadShelfController } from '../golden.test-support.ts';

describe('web-app sync expression', () => {
  itAnswersEveryGolden(loadShelfController(new URL('./', import.meta.url)), ['fresh.json', 'observed-ready.json', 'observed-rolling.json', 'single-replica.json']);
});
