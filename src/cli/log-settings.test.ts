import { describe, expect, it } from 'vitest';
import { parseGoFlags } from './go-flags.ts';
import { logSettings, type LogEnvironment } from './log-settings.ts';
import { RUN_FLAG_SPEC } from './run-config.ts';

const PIPE: LogEnvironment = { terminal: false, noColor: false };
const TERMINAL: LogEnvironment = { terminal: true, noColor: false };
const settings = (env: LogEnvironment, ...args: string[]) => logSettings(parseGoFlags(args, RUN_FLAG_SPEC).values, env);

describe('logSettings: level', () => {
  it.each<[string[], LogEnvironment, string]>([
    [[], PIPE, 'info'],
    [[], { ...PIPE, level: 'debug' }, 'debug'],
    [['--log-level=warn'], { ...PIPE, level: 'debug' }, 'warn'],
    [['--log-level=WARN'], PIPE, 'warn'],
    [['--zap-log-level=4'], PIPE, 'debug'],
    [['--zap-log-level=2'], PIPE, 'info'],
    [['--zap-log-level=error'], PIPE, 'error'],
    [['--zap-log-level=panic'], PIPE, 'fatal'],
    [['--log-level=warn', '--zap-log-level=4'], PIPE, 'warn'],
    [['--zap-devel'], PIPE, 'debug'],
    [['--zap-devel', '--zap-log-level=info'], PIPE, 'info'],
  ])('%j with %j is %s', (args, env, level) => {
    expect(settings(env, ...args).level).toBe(level);
  });

  it.each([
    [['--log-level=verbose'], PIPE, '--log-level: expected one of trace, debug, info, warn, error, fatal; got "verbose"'],
    [['--zap-log-level=loud'], PIPE, '--zap-log-level: expected one of'],
    [[], { ...PIPE, level: 'chatty' }, '$LOOM_LOG_LEVEL: expected one of'],
  ])('%j with %j is refused, naming where the level came from', (args, env, message) => {
    expect(() => settings(env, ...args)).toThrow(message);
  });
});

describe('logSettings: format', () => {
  it.each<[string[], LogEnvironment, string]>([
    [[], PIPE, 'json'],
    [[], TERMINAL, 'text'],
    [['--log-format=json'], TERMINAL, 'json'],
    [['--log-format=text'], PIPE, 'text'],
    [['--log-format=auto'], TERMINAL, 'text'],
    [['--zap-encoder=console'], PIPE, 'text'],
    [['--zap-encoder=json'], TERMINAL, 'json'],
    [['--zap-devel'], PIPE, 'text'],
    [['--log-format=json', '--zap-encoder=console'], PIPE, 'json'],
  ])('%j with %j is %s', (args, env, format) => {
    expect(settings(env, ...args).format).toBe(format);
  });

  it('refuses an unknown format', () => {
    expect(() => settings(PIPE, '--log-format=yaml')).toThrow('--log-format: expected auto, json or text; got "yaml"');
  });

  it('colours only a terminal, and never with $NO_COLOR', () => {
    expect([settings(TERMINAL).colors, settings({ ...TERMINAL, noColor: true }).colors, settings(PIPE, '--log-format=text').colors]).toEqual([true, false, false]);
  });
});
