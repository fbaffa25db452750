/**
 * loom's side of the evaluator channel: a reply is checked before use, and a failure's message is cut
 * on receipt too, as an evaluator that does not cut it (a broken or replaced process) must not be able
 * to make loom carry a huge message.
 */
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../api/bounded-text.ts';
import { fromWireFailure, readReply, type EvaluatorReply } from './evaluator-protocol.ts';
import { JsonataEvaluationError } from './jsonata-errors.ts';

const huge = 'x'.repeat(1_000_000);

describe('evaluator protocol: failures on receipt', () => {
  it('cuts the message of a failure reply', () => {
    const reply = readReply({ type: 'failure', call: 3, failure: { kind: 'evaluation', message: huge, jsonataCode: 'D3137', position: 6, code: '500' } });
    expect(reply?.type).toBe('failure');
    const failure = (reply as Extract<typeof reply, { type: 'failure' }>).failure;
    expect(failure.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(failure.message).toMatch(/… \(\d+ more characters\)$/);
    expect(failure).toMatchObject({ kind: 'evaluation', jsonataCode: 'D3137', position: 6, code: '500' });
  });

  it('drops a JSONata code and an observer code too long to be codes', () => {
    const reply = readReply({ type: 'failure', call: 3, failure: { kind: 'evaluation', message: 'boom', jsonataCode: huge, code: huge } });
    const failure = (reply as Extract<typeof reply, { type: 'failure' }>).failure;
    expect(failure.jsonataCode).toBeUndefined();
    expect(failure.code).toBe('500');
  });

  it('rebuilds an error whose message is bounded, whatever it was given', () => {
    const error = fromWireFailure({ kind: 'evaluation', message: huge, jsonataCode: 'D3137', position: 6, code: '500' });
    expect(error).toBeInstanceOf(JsonataEvaluationError);
    expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
  });

  it('keeps a short message as sent', () => {
    const reply = readReply({ type: 'failure', call: 1, failure: { kind: 'hook', message: 'sync hook: boom', code: '500' } });
    expect(reply).toEqual({ type: 'failure', call: 1, failure: { kind: 'hook', message: 'sync hook: boom', code: '500', jsonataCode: undefined, position: undefined } });
  });

  it('carries a run-time error’s line and column with its position, and rebuilds them', () => {
    const sent = { kind: 'evaluation', message: 'sync hook: JSONata error at line 2, column 8: boom', jsonataCode: 'D3137', position: 16, line: 2, column: 8, code: '500' };
    const failure = (readReply({ type: 'failure', call: 2, failure: sent }) as Extract<EvaluatorReply, { type: 'failure' }>).failure;
    expect(failure).toEqual(sent);
    expect(fromWireFailure(failure)).toMatchObject({ message: sent.message, code: 'D3137', position: 16, line: 2, column: 8 });
  });

  it('drops a line or column that is not a positive whole number', () => {
    const sent = { kind: 'evaluation', message: 'sync hook: JSONata error: boom', line: 0, column: 'x', code: '500' };
    const failure = (readReply({ type: 'failure', call: 2, failure: sent }) as Extract<EvaluatorReply, { type: 'failure' }>).failure;
    expect(failure).toMatchObject({ line: undefined, column: undefined });
  });
});
