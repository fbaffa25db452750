/**
 * How loom logs: the level and the format, from `--log-level`/`--log-format`, Metacontroller's zap
 * flags (so its manifests keep their meaning), and `$LOOM_LOG_LEVEL`. JSON for machines by default;
 * human-readable text when stderr is a terminal, as a person is reading it.
 */
import { FlagError } from './go-flags.ts';

/** The levels pino knows, least severe first. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'text';

/** What the logger is built with. */
export interface LogSettings {
  level: LogLevel;
  format: LogFormat;
  /** ANSI colours in text: on a terminal, unless `$NO_COLOR` is set. */
  colors: boolean;
}

/** What decides the settings besides the flags. */
export interface LogEnvironment {
  /** `$LOOM_LOG_LEVEL`. */
  level?: string | undefined;
  /** Whether stderr, where logs go, is a terminal. */
  terminal: boolean;
  /** `$NO_COLOR` is set (https://no-color.org). */
  noColor: boolean;
}

type Values = ReadonlyMap<string, string>;

function checkedLevel(source: string, value: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === value.toLowerCase());
  if (level) return level;
  throw new FlagError(`${source}: expected one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(value)}`);
}

/**
 * zap's level: a name, or a verbosity number (controller-runtime maps `--zap-log-level=4` to V(4),
 * debug output); zap's `dpanic` and `panic` are fatal here.
 */
function zapLevel(value: string): LogLevel {
  if (/^\d+$/.test(value)) return Number(value) >= 4 ? 'debug' : 'info';
  if (value === 'panic' || value === 'dpanic') return 'fatal';
  return checkedLevel('--zap-log-level', value);
}

/** `--log-level`, else `--zap-log-level`, else debug with `--zap-devel`, else `$LOOM_LOG_LEVEL`, else info. */
function levelOf(values: Values, env: LogEnvironment): LogLevel {
  const explicit = values.get('log-level');
  if (explicit) return checkedLevel('--log-level', explicit);
  const zap = values.get('zap-log-level');
  if (zap) return zapLevel(zap);
  // zap's development mode logs at debug.
  if (values.get('zap-devel') === 'true') return 'debug';
  return env.level ? checkedLevel('$LOOM_LOG_LEVEL', env.level) : 'info';
}

/** `--log-format` as given: `json`, `text`, or undefined for `auto` (or not given). */
function explicitFormat(values: Values): LogFormat | undefined {
  const given = values.get('log-format');
  if (given === undefined || given === '' || given === 'auto') return undefined;
  if (given === 'json' || given === 'text') return given;
  throw new FlagError(`--log-format: expected auto, json or text; got ${JSON.stringify(given)}`);
}

/**
 * `--log-format`, else zap's encoder (`console` is text), else text with `--zap-devel` (zap's
 * development mode logs for people) or on a terminal, else JSON.
 */
function formatOf(values: Values, env: LogEnvironment): LogFormat {
  const explicit = explicitFormat(values);
  if (explicit) return explicit;
  const encoder = values.get('zap-encoder');
  if (encoder) return encoder === 'console' ? 'text' : 'json';
  return env.terminal || values.get('zap-devel') === 'true' ? 'text' : 'json';
}

/** The log settings of a command from its flags and environment. */
export function logSettings(values: Values, env: LogEnvironment): LogSettings {
  return { level: levelOf(values, env), format: formatOf(values, env), colors: env.terminal && !env.noColor };
}
