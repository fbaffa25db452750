/**
 * The names of every function an inline JSONata expression can call without binding it: JSONata's
 * own library (as of the JSONata version loom ships; `jsonata-functions.test.ts` checks the list
 * against it) and loom's helpers ({@link JSONATA_HELPERS}, which the runner binds). `loom validate`
 * checks the functions an expression calls against these, so a misspelt one is caught before it runs.
 */
import { JSONATA_HELPERS } from './jsonata-helpers.ts';

/** JSONata's function library, without the `$`; `now` and `millis` are bound per evaluation. */
export const JSONATA_LIBRARY_FUNCTIONS: readonly string[] = [
  'sum', 'count', 'max', 'min', 'average', 'string', 'substring', 'substringBefore', 'substringAfter', 'lowercase',
  'uppercase', 'length', 'trim', 'pad', 'match', 'contains', 'replace', 'split', 'join', 'formatNumber', 'formatBase',
  'formatInteger', 'parseInteger', 'number', 'floor', 'ceil', 'round', 'abs', 'sqrt', 'power', 'random', 'boolean',
  'not', 'map', 'zip', 'filter', 'single', 'reduce', 'sift', 'keys', 'lookup', 'append', 'exists', 'spread', 'merge',
  'reverse', 'each', 'error', 'assert', 'type', 'sort', 'shuffle', 'distinct', 'base64encode', 'base64decode',
  'encodeUrlComponent', 'encodeUrl', 'decodeUrlComponent', 'decodeUrl', 'eval', 'toMillis', 'fromMillis', 'clone',
  'now', 'millis',
];

/** Every function a hook or `readyWhen` expression finds bound, without the `$`: JSONata's, then loom's. */
export function boundFunctionNames(): string[] {
  return [...new Set([...JSONATA_LIBRARY_FUNCTIONS, ...JSONATA_HELPERS.map((helper) => helper.name)])];
}
