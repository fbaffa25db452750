import { describe, expect, it } from 'vitest';
import { childPoliciesOf, hasChildAnnotations, parseSiblingRef } from './child-annotations.ts';
import type { KubeObject } from './object.ts';

const child = (annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(annotations && { annotations }) },
});

describe('childPoliciesOf', () => {
  it('gives the defaults to a child without annotations or rule', () => {
    expect(childPoliciesOf(child())).toEqual({
      ok: true, value: { wave: 0, dependsOn: [], readyWhen: undefined, deletionPolicy: 'Delete', onImmutableChange: undefined },
    });
  });

  it('takes the rule under the annotations, and the annotations over the rule', () => {
    const rule = { wave: 2, readyWhen: 'true', deletionPolicy: 'Orphan' as const, onImmutableChange: 'Fail' as const };
    expect(childPoliciesOf(child(), rule)).toMatchObject({ ok: true, value: rule });
    const annotated = child({
      'loom.dev/wave': '-3', 'loom.dev/ready-when': 'status.ok', 'loom.dev/deletion-policy': 'Retain', 'loom.dev/on-immutable-change': 'Recreate',
    });
    expect(childPoliciesOf(annotated, rule)).toMatchObject({
      ok: true, value: { wave: -3, readyWhen: 'status.ok', deletionPolicy: 'Retain', onImmutableChange: 'Recreate' },
    });
  });

  it('reads dependsOn as comma-separated sibling references', () => {
    const result = childPoliciesOf(child({ 'loom.dev/depends-on': 'ConfigMap/a, Deployment.apps/web ,Database.db.example.com/other/db,' }));
    expect(result).toMatchObject({
      ok: true,
      value: {
        dependsOn: [
          { kind: 'ConfigMap', name: 'a' },
          { kind: 'Deployment', group: 'apps', name: 'web' },
          { kind: 'Database', group: 'db.example.com', namespace: 'other', name: 'db' },
        ],
      },
    });
  });

  it('lists every problem of bad annotations', () => {
    const result = childPoliciesOf(child({
      'loom.dev/wave': '1.5', 'loom.dev/depends-on': 'web, ConfigMap/Bad_Name', 'loom.dev/deletion-policy': 'delete', 'loom.dev/ready-when': ' ',
    }));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toEqual([
      'loom.dev/wave: expected an integer, got "1.5"',
      'loom.dev/depends-on: "web" is not Kind[.group]/[namespace/]name',
      'loom.dev/depends-on: "ConfigMap/Bad_Name": "Bad_Name" is not an object name',
      'loom.dev/ready-when: empty expression',
      'loom.dev/deletion-policy: expected one of Delete, Orphan, Retain, got "delete"',
    ]);
  });

  it('quotes the head of an unparseable value, not all of it', () => {
    const huge = `x${'9'.repeat(200_000)}`;
    const result = childPoliciesOf(child({ 'loom.dev/wave': huge, 'loom.dev/depends-on': `ConfigMap/Bad_${huge}` }));
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^loom\.dev\/wave: expected an integer, got "x9{40,}/);
    for (const problem of problems) {
      expect(problem).toContain('more characters');
      expect(problem.length).toBeLessThan(300);
    }
  });

  it('refuses more than 100 siblings', () => {
    const many = Array.from({ length: 101 }, (_, i) => `ConfigMap/c${i}`).join(',');
    expect(childPoliciesOf(child({ 'loom.dev/depends-on': many }))).toEqual({
      ok: false, problems: ['loom.dev/depends-on: names 101 siblings; at most 100'],
    });
  });
});

describe('parseSiblingRef', () => {
  it('takes the core group from a bare kind with a dot after nothing', () => {
    expect(parseSiblingRef('Service/s')).toEqual({ kind: 'Service', name: 's', text: 'Service/s' });
    expect(parseSiblingRef('a/b/c/d')).toBe('"a/b/c/d" is not Kind[.group]/[namespace/]name');
  });
});

describe('hasChildAnnotations', () => {
  it('tells a child that asks for ordering or policies', () => {
    expect(hasChildAnnotations(child())).toBe(false);
    expect(hasChildAnnotations(child({ other: 'x' }))).toBe(false);
    expect(hasChildAnnotations(child({ 'loom.dev/wave': '1' }))).toBe(true);
  });
});
