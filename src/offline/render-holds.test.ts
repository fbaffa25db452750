import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import { renderHolds } from './render-holds.ts';
import { RenderError } from './render-error.ts';

const declared = [{ apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'db.example.com/v1', kind: 'Database' }];
const cm = (name: string, annotations?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...(annotations && { annotations }) } });
const database = (status?: object): KubeObject =>
  ({ apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name: 'pg', namespace: 'ns' }, ...(status && { status }) });
const notReady = { conditions: [{ type: 'Ready', status: 'False', message: 'provisioning' }] };

describe('renderHolds', () => {
  it('is absent when no child asks for order', () => {
    expect(renderHolds({ desired: [cm('a'), database()], observed: [], declared, ruleOf: () => undefined })).toBeUndefined();
  });

  it('foresees what waits for an observed child that is not ready', () => {
    const desired = [database(), cm('app', { 'loom.dev/depends-on': 'Database/pg' }), cm('late', { 'loom.dev/wave': '1' })];
    expect(renderHolds({ desired, observed: [database(notReady)], declared, ruleOf: () => undefined })).toEqual([
      'ConfigMap ns/app waits for Database ns/pg (InProgress: Database: Ready is False (provisioning))',
      'ConfigMap ns/late waits for Database ns/pg (InProgress: Database: Ready is False (provisioning)), ConfigMap ns/app (held)',
    ]);
  });

  it('foresees no hold when the writes would be ready at once', () => {
    const desired = [cm('a', { 'loom.dev/wave': '0' }), cm('b', { 'loom.dev/wave': '1' })];
    expect(renderHolds({ desired, observed: [], declared, ruleOf: () => undefined })).toEqual([]);
  });

  it('refuses a cycle as the sync would', () => {
    const desired = [cm('a', { 'loom.dev/depends-on': 'ConfigMap/b' }), cm('b', { 'loom.dev/depends-on': 'ConfigMap/a' })];
    expect(() => renderHolds({ desired, observed: [], declared, ruleOf: () => undefined })).toThrow(RenderError);
  });
});
