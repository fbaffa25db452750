/**
 * The evaluator's side of the channel without a process: a failure's message is cut before it is
 * sent, so an expression that fails with a huge message (`$error($pad("x", 100000000))`) cannot make
 * loom carry it into logs, events and spans.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import { MAX_MESSAGE_CHARS } from '../api/bounded-text.ts';
import type { EvaluatorReply } from './evaluator-protocol.ts';
import { createEvaluatorService } from './evaluator-service.ts';

async function failureOf(expression: string): Promise<Extract<EvaluatorReply, { type: 'failure' }>['failure']> {
  const replies: EvaluatorReply[] = [];
  const serve = createEvaluatorService({ clock: systemClock, send: (reply) => replies.push(reply), maxResponseChars: 1_000_000 });
  await serve({ type: 'define', id: 1, definition: { expression, hook: 'sync', timeoutMs: 5_000 } });
  await serve({ type: 'call', call: 7, id: 1, request: {} });
  const [reply] = replies;
  if (reply?.type !== 'failure') throw new Error(`expected a failure, got ${JSON.stringify(reply)}`);
  return reply.failure;
}

describe('evaluator service: failures', () => {
  it('sends a huge $error message cut to the limit, saying how much was cut', async () => {
    const failure = await failureOf('$error($pad("x", 1000000))');
    expect(failure.kind).toBe('evaluation');
    expect(failure.jsonataCode).toBe('D3137');
    expect(failure.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(failure.message).toMatch(/^sync hook: JSONata error at line 1, column 1: x +… \(\d+ more characters\)$/);
  });

  it('sends a short message as it is', async () => {
    const failure = await failureOf('$error("boom")');
    expect(failure).toMatchObject({ message: 'sync hook: JSONata error at line 1, column 1: boom', position: 7, line: 1, column: 1 });
  });
});
