/**
 * The root logger of `loom run` and `loom dev`, whose children every controller logs through. It is the
 * one place a log line is bounded: a failure can carry a message no person needs whole (a JSONata
 * `$error($pad("x", 100000000))`, an error body a library quotes), and pino's own error serializer
 * writes it several times in one line (the message with its causes, then the stack with theirs). Here
 * the line's message and the error's message, causes and stack are each cut to `MAX_MESSAGE_CHARS`.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { boundedJoin, boundedStack, boundedText, MAX_MESSAGE_CHARS } from '../api/index.ts';
import { errorChain } from '../engine/index.ts';
import type { LogLevel } from './log-settings.ts';

type Field = string | number | boolean | bigint | undefined | null;

function isField(value: unknown): value is Field {
  return value === null || (typeof value !== 'object' && typeof value !== 'function' && typeof value !== 'symbol');
}

/**
 * pino's error shape (`type`, `message` with the causes' messages after `: `, `stack`, and the error's
 * own fields), each part bounded; the stack is the error's own, its message cut.
 */
function boundedError(err: unknown): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? boundedText(err) : err;
  const logged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(err)) {
    if (isField(value)) logged[key] = typeof value === 'string' ? boundedText(value) : value;
  }
  const message = boundedJoin(errorChain(err), ': ');
  return { ...logged, type: err.constructor.name, message, stack: boundedStack(err) };
}

const BOUNDS: LoggerOptions = {
  serializers: { err: boundedError },
  hooks: {
    // The line's message, and any string arguments interpolated into it.
    logMethod(args, method) {
      const bounded = args.map((arg: unknown) => (typeof arg === 'string' && arg.length > MAX_MESSAGE_CHARS ? boundedText(arg) : arg));
      method.apply(this, bounded as Parameters<typeof method>);
    },
  },
};

/** A pino logger at `level` writing JSON lines to `destination`, each line's message and error bounded. */
export function rootLogger(level: LogLevel, destination: DestinationStream): Logger {
  return pino({ ...BOUNDS, level }, destination);
}
