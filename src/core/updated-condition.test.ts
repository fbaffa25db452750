import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../api/hook-wire.ts';
import {
  StatusConditionsError, onLatestRevision, rolloutProgressing, rolloutWaiting, withUpdatedCondition,
} from './updated-condition.ts';

describe('Updated condition values', () => {
  it.each([
    { condition: onLatestRevision('catsets.ctl.enisoc.com-abc'), want: { type: 'Updated', status: 'True', reason: 'OnLatestRevision', message: 'latest ControllerRevision: catsets.ctl.enisoc.com-abc' } },
    { condition: rolloutProgressing('Pod', 'web-2'), want: { type: 'Updated', status: 'False', reason: 'RolloutProgressing', message: 'updating Pod web-2' } },
    { condition: rolloutWaiting('missing child Pod web-1'), want: { type: 'Updated', status: 'False', reason: 'RolloutWaiting', message: 'missing child Pod web-1' } },
  ])('$want.reason', ({ condition, want }) => {
    expect(condition).toEqual(want);
  });
});

describe('withUpdatedCondition', () => {
  const updated = rolloutProgressing('Pod', 'web-0');
  const asJson = { type: 'Updated', status: 'False', reason: 'RolloutProgressing', message: 'updating Pod web-0' };
  const ready = { type: 'Ready', status: 'True' };

  it.each<{ name: string; status: JsonObject | null | undefined; want: JsonObject }>([
    { name: 'null status', status: null, want: { conditions: [asJson] } },
    { name: 'absent status', status: undefined, want: { conditions: [asJson] } },
    { name: 'no conditions', status: { replicas: 3 }, want: { replicas: 3, conditions: [asJson] } },
    { name: 'null conditions', status: { conditions: null }, want: { conditions: [asJson] } },
    { name: 'other conditions kept, appended last', status: { conditions: [ready] }, want: { conditions: [ready, asJson] } },
    {
      name: 'same type replaced in place, no timestamps kept',
      status: { conditions: [{ type: 'Updated', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }, ready] },
      want: { conditions: [asJson, ready] },
    },
    {
      name: 'only the first of the same type replaced',
      status: { conditions: [{ type: 'Updated', status: 'True' }, { type: 'Updated', status: 'Unknown' }] },
      want: { conditions: [asJson, { type: 'Updated', status: 'Unknown' }] },
    },
    { name: 'non-object items kept', status: { conditions: ['odd', ready] }, want: { conditions: ['odd', ready, asJson] } },
  ])('$name', ({ status, want }) => {
    expect(withUpdatedCondition(status, updated)).toEqual(want);
  });

  it('leaves out an empty message', () => {
    expect(withUpdatedCondition({}, rolloutWaiting(''))).toEqual({ conditions: [{ type: 'Updated', status: 'False', reason: 'RolloutWaiting' }] });
  });

  it('does not modify the hook status', () => {
    const status: JsonObject = { conditions: [ready] };
    withUpdatedCondition(status, updated);
    expect(status).toEqual({ conditions: [ready] });
  });

  it('fails when conditions is not a list', () => {
    expect(() => withUpdatedCondition({ conditions: { Ready: true } }, updated)).toThrow(StatusConditionsError);
  });
});
