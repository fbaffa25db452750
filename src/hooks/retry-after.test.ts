import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.ts';

const NOW = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');

describe('parseRetryAfter', () => {
  it.each<[string, string | undefined, number]>([
    ['integer seconds', '3', 3_000],
    ['zero seconds', '0', 0],
    ['seconds with surrounding spaces', ' 7 ', 7_000],
    ['leading zeros', '010', 10_000],
    ['a date 90 s ahead', 'Wed, 21 Oct 2015 07:29:30 GMT', 90_000],
    ['the current instant', 'Wed, 21 Oct 2015 07:28:00 GMT', 0],
    ['a date in the past', 'Tue, 20 Oct 2015 07:28:00 GMT', 0],
    ['negative seconds', '-5', 0],
    ['fractional seconds', '1.5', 0],
    ['a date that is not RFC 1123', '2015-10-21T07:29:30Z', 0],
    ['an RFC 1123 date with a numeric zone', 'Wed, 21 Oct 2015 07:29:30 +0000', 0],
    ['an impossible date', 'Wed, 41 Oct 2015 07:29:30 GMT', 0],
    ['words', 'later', 0],
    ['an empty value', '', 0],
    ['no header', undefined, 0],
  ])('%s', (_name, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});
