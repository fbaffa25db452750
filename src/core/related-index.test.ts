import { describe, expect, it } from 'vitest';
import { matchesSelector, type LabelSelector, type SelectorRequirement } from '../api/label-selector.ts';
import type { KubeObject } from '../api/object.ts';
import { createRelatedIndex, type RelatedIndex } from './related-index.ts';
import { selects, type NamespaceLabels, type RelatedSelection } from './related-selection.ts';
import { resourceTypeKey } from '../api/index.ts';

type Labels = Record<string, string>;

const CM = { apiVersion: 'v1', resource: 'configmaps' };
const CM_KEY = 'v1/configmaps';
const SECRETS = { apiVersion: 'v1', resource: 'secrets' };

function obj(name: string, namespace?: string, labels?: Labels): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(namespace === undefined ? {} : { namespace }), ...(labels ? { labels } : {}) } };
}

const NAMESPACES: Record<string, Labels> = { 'team-a': { team: 'x' }, 'team-b': { team: 'y' } };
const namespaceLabels: NamespaceLabels = (namespace) => NAMESPACES[namespace];

function indexOf(parents: Record<string, RelatedSelection[]>): RelatedIndex {
  const index = createRelatedIndex();
  for (const [parentKey, selections] of Object.entries(parents)) index.set(parentKey, selections);
  return index;
}

const sorted = (keys: Iterable<string>): string[] => [...keys].sort();
const selecting = (index: RelatedIndex, object: KubeObject, resourceKey = CM_KEY): string[] => sorted(index.parentsSelecting(resourceKey, object, namespaceLabels));

describe('resourceTypeKey', () => {
  it('joins apiVersion and resource', () => {
    expect(resourceTypeKey({ apiVersion: 'apps/v1', resource: 'deployments' })).toBe('apps/v1/deployments');
  });
});

describe('parentsSelecting, per bucket kind', () => {
  const webInA = obj('web', 'team-a', { app: 'web', tier: 'front' });
  const node = obj('node-1', undefined, { app: 'web' });
  const expr = (operator: SelectorRequirement['operator'], values?: string[]): LabelSelector => ({ matchExpressions: [{ key: 'app', operator, ...(values ? { values } : {}) }] });

  it.each<[string, RelatedSelection[], RelatedSelection[], KubeObject]>([
    ['names', [{ ...CM, names: ['db', 'web'] }, { ...CM, names: ['web'], namespace: 'team-a' }], [{ ...CM, names: ['db'] }, { ...CM, names: ['web'], namespace: 'team-b' }], webInA],
    [
      'matchLabels',
      [{ ...CM, labelSelector: { matchLabels: { app: 'web', tier: 'front' } } }, { ...CM, labelSelector: { matchLabels: { tier: 'front' } } }],
      [{ ...CM, labelSelector: { matchLabels: { app: 'web', tier: 'back' } } }, { ...CM, labelSelector: { matchLabels: { app: 'db' } } }, { ...CM, labelSelector: { matchLabels: { zone: 'a' } } }],
      webInA,
    ],
    ['namespace only', [{ ...CM, namespace: 'team-a' }], [{ ...CM, namespace: 'team-b' }, { ...CM, namespace: 'team-a', labelSelector: expr('DoesNotExist') }, { ...CM, namespace: '' }], webInA],
    ['cluster-scoped namespace', [{ ...CM, namespace: '' }], [{ ...CM, namespace: 'team-a' }], node],
    ['match everything', [{ ...CM }, { ...CM, labelSelector: {} }], [{ ...CM, namespaceSelector: { matchLabels: { team: 'y' } } }], webInA],
    ['matchExpressions only', [{ ...CM, labelSelector: expr('In', ['web']) }, { ...CM, labelSelector: expr('Exists') }], [{ ...CM, labelSelector: expr('NotIn', ['web']) }, { ...CM, labelSelector: expr('DoesNotExist') }], webInA],
    [
      'labels + namespaceSelector',
      [{ ...CM, labelSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchLabels: { team: 'x' } } }],
      [{ ...CM, labelSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchLabels: { team: 'y' } } }],
      webInA,
    ],
  ])('%s', (_name, yes, no, object) => {
    const parents: Record<string, RelatedSelection[]> = {};
    yes.forEach((selection, i) => (parents[`yes-${i}`] = [selection]));
    no.forEach((selection, i) => (parents[`no-${i}`] = [selection]));
    expect(selecting(indexOf(parents), object)).toEqual(yes.map((_, i) => `yes-${i}`));
  });

  it('returns a parent once when several of its selections pick the object', () => {
    const index = indexOf({ p: [{ ...CM, names: ['web'] }, { ...CM, labelSelector: { matchLabels: { app: 'web' } } }, { ...CM }] });
    expect([...index.parentsSelecting(CM_KEY, webInA, namespaceLabels)]).toEqual(['p']);
  });

  it('returns a parent when only one of its selections picks the object', () => {
    const index = indexOf({ p: [{ ...CM, names: ['db'] }, { ...CM, namespace: 'team-a' }] });
    expect(selecting(index, webInA)).toEqual(['p']);
    expect(selecting(index, obj('web', 'team-b'))).toEqual([]);
  });

  it('keeps resource keys apart', () => {
    const index = indexOf({ cm: [{ ...CM }], secret: [{ ...SECRETS }], other: [{ apiVersion: 'v2', resource: 'configmaps' }] });
    expect(selecting(index, webInA)).toEqual(['cm']);
    expect(selecting(index, webInA, 'v1/secrets')).toEqual(['secret']);
    expect(selecting(index, webInA, 'v1/pods')).toEqual([]);
  });

  it('an object without name or labels is still routed to match-everything parents', () => {
    const bare: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} };
    expect(selecting(indexOf({ all: [{ ...CM }], named: [{ ...CM, names: ['web'] }] }), bare)).toEqual(['all']);
  });
});

describe('set and delete', () => {
  const web = obj('web', 'team-a', { app: 'web' });
  const db = obj('db', 'team-b', { app: 'db' });

  it('set replaces the old routes', () => {
    const index = indexOf({ p: [{ ...CM, names: ['web'] }, { ...CM, labelSelector: { matchLabels: { app: 'web' } } }] });
    expect(selecting(index, web)).toEqual(['p']);
    index.set('p', [{ ...CM, names: ['db'] }]);
    expect(selecting(index, web)).toEqual([]);
    expect(selecting(index, db)).toEqual(['p']);
    index.set('p', []);
    expect(selecting(index, db)).toEqual([]);
  });

  it('set moves a parent between resource keys', () => {
    const index = indexOf({ p: [{ ...CM }] });
    index.set('p', [{ ...SECRETS }]);
    expect(selecting(index, web)).toEqual([]);
    expect(selecting(index, web, 'v1/secrets')).toEqual(['p']);
  });

  it('delete removes every route and leaves other parents alone', () => {
    const team = { matchLabels: { team: 'x' } };
    const selections: RelatedSelection[] = [{ ...CM, names: ['web'] }, { ...CM, namespace: 'team-b' }, { ...CM, namespaceSelector: team }, { ...SECRETS }];
    const index = indexOf({ p: selections, q: [{ ...CM, names: ['web'] }] });
    index.delete('p');
    expect(selecting(index, web)).toEqual(['q']);
    expect(selecting(index, db)).toEqual([]);
    expect(selecting(index, web, 'v1/secrets')).toEqual([]);
    expect(sorted(index.parentsOfNamespaceChange({}, { team: 'x' }))).toEqual([]);
  });

  it('delete of an unknown parent is harmless', () => {
    const index = indexOf({ q: [{ ...CM }] });
    index.delete('nobody');
    expect(selecting(index, web)).toEqual(['q']);
  });
});

describe('parentsOfNamespaceChange', () => {
  const team: LabelSelector = { matchLabels: { team: 'x' } };
  const notFrozen: LabelSelector = { matchExpressions: [{ key: 'frozen', operator: 'DoesNotExist' }] };
  const notProd: LabelSelector = { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] };

  it.each<[string, LabelSelector, [Labels | undefined, Labels | undefined], boolean]>([
    ['label added makes it match', team, [{}, { team: 'x' }], true],
    ['label value changed to match', team, [{ team: 'y' }, { team: 'x' }], true],
    ['label removed stops the match', team, [{ team: 'x', a: '1' }, { a: '1' }], true],
    ['still matching', team, [{ team: 'x' }, { team: 'x', other: '1' }], false],
    ['still not matching', team, [{ team: 'y' }, { team: 'z' }], false],
    ['namespace added, matching', team, [undefined, { team: 'x' }], true],
    ['namespace added, not matching', team, [undefined, { team: 'y' }], false],
    ['namespace deleted, was matching', team, [{ team: 'x' }, undefined], true],
    ['namespace deleted, was not matching', team, [{ team: 'y' }, undefined], false],
    ['{} : namespace added', {}, [undefined, {}], true],
    ['{} : namespace deleted', {}, [{ a: '1' }, undefined], true],
    ['{} : labels changed', {}, [{ a: '1' }, { b: '2' }], false],
    ['expressions only: label added stops the match', notFrozen, [{}, { frozen: 'yes' }], true],
    ['expressions only: label removed starts the match', notFrozen, [{ frozen: 'yes' }, {}], true],
    ['expressions only: unrelated label', notFrozen, [{}, { other: '1' }], false],
    ['NotIn: label added stops the match', notProd, [{ team: 'x' }, { team: 'x', env: 'prod' }], true],
  ])('%s', (_name, namespaceSelector, [previous, current], expected) => {
    const index = indexOf({ p: [{ ...CM, namespaceSelector }], plain: [{ ...CM }, { ...CM, labelSelector: team }] });
    expect(sorted(index.parentsOfNamespaceChange(previous, current))).toEqual(expected ? ['p'] : []);
  });

  it('returns exactly the affected parents, once each', () => {
    const index = indexOf({
      gains: [{ ...CM, namespaceSelector: { matchLabels: { team: 'x' } } }, { ...SECRETS, namespaceSelector: { matchLabels: { env: 'dev' } } }],
      loses: [{ ...CM, namespaceSelector: { matchLabels: { team: 'y' } } }],
      same: [{ ...CM, namespaceSelector: { matchLabels: { zone: 'a' } } }],
    });
    expect([...index.parentsOfNamespaceChange({ team: 'y', zone: 'a' }, { team: 'x', env: 'dev', zone: 'a' })].sort()).toEqual(['gains', 'loses']);
  });
});

describe('invalid selectors', () => {
  const broken: LabelSelector = { matchExpressions: [{ key: 'app', operator: 'In' }] };
  const web = obj('web', 'team-a', { app: 'web' });

  it('a parent with an invalid label selector is not returned and does not throw', () => {
    const index = indexOf({ bad: [{ ...CM, labelSelector: broken }], good: [{ ...CM }] });
    expect(() => index.parentsSelecting(CM_KEY, web, namespaceLabels)).not.toThrow();
    expect(selecting(index, web)).toEqual(['good']);
  });

  it('a parent with an invalid namespace selector is not returned and does not throw', () => {
    const index = indexOf({ bad: [{ ...CM, namespaceSelector: broken }], good: [{ ...CM, namespaceSelector: {} }] });
    expect(selecting(index, web)).toEqual(['good']);
    expect(() => index.parentsOfNamespaceChange(undefined, { app: 'web' })).not.toThrow();
    expect(sorted(index.parentsOfNamespaceChange(undefined, { app: 'web' }))).toEqual(['good']);
  });

  it('an invalid selection does not hide a valid one of the same parent', () => {
    const index = indexOf({ p: [{ ...CM, labelSelector: broken }, { ...CM, names: ['web'] }] });
    expect(selecting(index, web)).toEqual(['p']);
  });
});

/** A Mulberry32 PRNG: seeded, so the random cases are the same on every run. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number): number => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;
  const some = <T>(items: readonly T[], max: number): T[] => [...new Set(Array.from({ length: below(max + 1) }, () => pick(items)))];
  return { chance: (p: number): boolean => next() < p, below, pick, some };
}
type Random = ReturnType<typeof createRandom>;

const KEYS = ['k1', 'k2', 'k3'];
const VALUES = ['v1', 'v2'];
const NAMES = ['a', 'b', 'c'];
const RESOURCES = [CM, SECRETS];
const OPERATORS: SelectorRequirement['operator'][] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
/** `n3` holds objects but is not known as a namespace; `''` is cluster scope. */
const SPACES: Record<string, Labels> = { n1: { k1: 'v1' }, n2: { k1: 'v2', k2: 'v1' } };
const spaceLabels: NamespaceLabels = (namespace) => SPACES[namespace];

function randomLabels(random: Random): Labels {
  return Object.fromEntries(random.some(KEYS, 3).map((key) => [key, random.pick(VALUES)]));
}

function randomSelector(random: Random): LabelSelector {
  const requirement = (): SelectorRequirement => {
    const operator = random.pick(OPERATORS);
    const values = operator === 'In' || operator === 'NotIn' ? random.some(VALUES, 2) : [];
    return { key: random.pick(KEYS), operator, ...(values.length > 0 || random.chance(0.1) ? { values } : {}) };
  };
  return {
    ...(random.chance(0.6) ? { matchLabels: randomLabels(random) } : {}),
    ...(random.chance(0.4) ? { matchExpressions: Array.from({ length: random.chance(0.5) ? 1 : 2 }, requirement) } : {}),
  };
}

function randomSelection(random: Random): RelatedSelection {
  return {
    ...random.pick(RESOURCES),
    ...(random.chance(0.4) ? { namespace: random.pick(['n1', 'n2', 'n3', '']) } : {}),
    ...(random.chance(0.3) ? { names: random.some(NAMES, 2) } : {}),
    ...(random.chance(0.5) ? { labelSelector: randomSelector(random) } : {}),
    ...(random.chance(0.25) ? { namespaceSelector: randomSelector(random) } : {}),
  };
}

function randomObject(random: Random): KubeObject {
  return obj(random.pick(NAMES), random.pick(['n1', 'n2', 'n3', undefined]), random.chance(0.8) ? randomLabels(random) : undefined);
}

const safely = (test: () => boolean): boolean => {
  try {
    return test();
  } catch {
    return false;
  }
};

type Model = Map<string, RelatedSelection[]>;

/** The brute-force answer: every parent whose selections include one that `counts`. */
function parentsWhere(model: Model, counts: (selection: RelatedSelection) => boolean): string[] {
  return sorted([...model].filter(([, selections]) => selections.some((s) => safely(() => counts(s)))).map(([parentKey]) => parentKey));
}

/** A few hundred random parents, then some churn through `set` and `delete`, mirrored in a plain map. */
function randomParents(random: Random): { index: RelatedIndex; model: Model } {
  const index = createRelatedIndex();
  const model: Model = new Map();
  const randomSet = (parentKey: string): void => {
    const selections = Array.from({ length: random.pick([0, 1, 1, 2, 3]) }, () => randomSelection(random));
    index.set(parentKey, selections);
    model.set(parentKey, selections);
  };
  for (let i = 0; i < 300; i++) randomSet(`p${i}`);
  for (let i = 0; i < 150; i++) {
    const parentKey = `p${random.below(320)}`; // some are new parents
    if (random.chance(0.3)) {
      index.delete(parentKey);
      model.delete(parentKey);
    } else randomSet(parentKey);
  }
  return { index, model };
}

describe('property: the index agrees with brute force', () => {
  it.each([1, 2, 3, 42, 2024])('seed %i: parentsSelecting', (seed) => {
    const random = createRandom(seed);
    const { index, model } = randomParents(random);
    let hits = 0;
    for (let i = 0; i < 300; i++) {
      const object = randomObject(random);
      const resourceKey = resourceTypeKey(random.pick(RESOURCES));
      const expected = parentsWhere(model, (s) => resourceTypeKey(s) === resourceKey && selects(s, object, spaceLabels));
      hits += expected.length;
      expect({ object, resourceKey, parents: sorted(index.parentsSelecting(resourceKey, object, spaceLabels)) }).toEqual({ object, resourceKey, parents: expected });
    }
    expect(hits).toBeGreaterThan(300); // the random cases do select something
  });

  it.each([7, 8, 9])('seed %i: parentsOfNamespaceChange', (seed) => {
    const random = createRandom(seed);
    const { index, model } = randomParents(random);
    const maybeLabels = (): Labels | undefined => (random.chance(0.2) ? undefined : randomLabels(random));
    let hits = 0;
    for (let i = 0; i < 200; i++) {
      const previous = maybeLabels();
      const current = random.chance(0.3) ? previous : maybeLabels();
      const picks = (selector: LabelSelector, labels: Labels | undefined): boolean => labels !== undefined && matchesSelector(selector, labels);
      const expected = parentsWhere(model, (s) => s.namespaceSelector !== undefined && picks(s.namespaceSelector, previous) !== picks(s.namespaceSelector, current));
      hits += expected.length;
      expect({ previous, current, parents: sorted(index.parentsOfNamespaceChange(previous, current)) }).toEqual({ previous, current, parents: expected });
    }
    expect(hits).toBeGreaterThan(100);
  });
});
