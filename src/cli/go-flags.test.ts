import { describe, expect, it } from 'vitest';
import { FlagError, parseGoFlags } from './go-flags.ts';

const spec = { workers: 'string', 'leader-election': 'bool', kubeconfig: 'string' } as const;

describe('parseGoFlags', () => {
  it('reads every Go flag form', () => {
    const { values, positionals } = parseGoFlags(['run', '-workers', '3', '--kubeconfig=/k', '--leader-election', 'extra'], spec);
    expect(Object.fromEntries(values)).toEqual({ workers: '3', kubeconfig: '/k', 'leader-election': 'true' });
    expect(positionals).toEqual(['run', 'extra']);
  });

  it('takes an explicit boolean value and stops at --', () => {
    const { values, positionals } = parseGoFlags(['--leader-election=false', '--', '--workers'], spec);
    expect(values.get('leader-election')).toBe('false');
    expect(positionals).toEqual(['--workers']);
  });

  it('reads a boolean as Go does (1, t, TRUE, True; 0, f, FALSE, False), and keeps any other value as given', () => {
    const value = (arg: string) => parseGoFlags([`--leader-election=${arg}`], spec).values.get('leader-election');
    expect(['1', 't', 'T', 'TRUE', 'True'].map(value)).toEqual(Array(5).fill('true'));
    expect(['0', 'f', 'F', 'FALSE', 'False'].map(value)).toEqual(Array(5).fill('false'));
    expect(value('production')).toBe('production');
  });

  it('names unknown flags and missing values', () => {
    expect(() => parseGoFlags(['--wrokers', '3'], spec)).toThrow(new FlagError('unknown flag --wrokers'));
    expect(() => parseGoFlags(['--workers'], spec)).toThrow('flag --workers needs a value');
  });
});
