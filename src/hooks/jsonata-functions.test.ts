import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { JSONATA_LIBRARY_FUNCTIONS, boundFunctionNames } from './jsonata-functions.ts';
import { JSONATA_HELPERS } from './jsonata-helpers.ts';

describe('JSONATA_LIBRARY_FUNCTIONS', () => {
  it('names a function JSONata binds, every one', async () => {
    const types = await jsonata(`[${JSONATA_LIBRARY_FUNCTIONS.map((name) => `$type($${name})`).join(', ')}]`).evaluate({}) as unknown;
    expect(types).toEqual(JSONATA_LIBRARY_FUNCTIONS.map(() => 'function'));
  });

  it('lists every function of the JSONata loom ships (read from its source, so an upgrade that adds one fails here)', () => {
    const source = readFileSync(createRequire(import.meta.url).resolve('jsonata'), 'utf8');
    const bound = [...source.matchAll(/(?:staticFrame|environment)\.bind\('(\w+)'/g)].map((match) => match[1]);
    expect([...JSONATA_LIBRARY_FUNCTIONS].sort()).toEqual([...new Set(bound)].sort());
  });
});

describe('boundFunctionNames', () => {
  it('holds JSONata\'s functions and each of loom\'s helpers once', () => {
    const names = boundFunctionNames();
    expect(names).toEqual(expect.arrayContaining([...JSONATA_LIBRARY_FUNCTIONS, ...JSONATA_HELPERS.map((h) => h.name), 'ready', 'readiness']));
    expect(new Set(names).size).toBe(names.length);
  });
});
