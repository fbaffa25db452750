/**
 * Command-line flags the way Go's `flag` package reads them, so Metacontroller's command lines work
 * unchanged: `-name value`, `--name value`, `-name=value`, and a boolean flag alone meaning true.
 */

/** The kinds of value a flag takes. */
export type FlagKind = 'string' | 'bool';

/** Declared flags: name → kind. */
export type FlagSpec = Readonly<Record<string, FlagKind>>;

/** Thrown for an unknown flag or a missing value; the message names the flag. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/** Parsed flags (raw strings; booleans as "true"/"false") and the positional arguments. */
export interface ParsedFlags {
  values: Map<string, string>;
  positionals: string[];
}

function splitFlag(arg: string): [name: string, inline: string | undefined] {
  const body = arg.replace(/^--?/, '');
  const eq = body.indexOf('=');
  return eq < 0 ? [body, undefined] : [body.slice(0, eq), body.slice(eq + 1)];
}

const GO_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const GO_FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];

/**
 * A boolean flag's value as Go's `strconv.ParseBool` reads it, as "true" or "false". Anything else is
 * kept as given rather than refused: Metacontroller's chart passes `--zap-devel=production`, which
 * must not stop loom from starting.
 */
function goBool(value: string | undefined): string {
  if (value === undefined || GO_TRUE.includes(value)) return 'true';
  return GO_FALSE.includes(value) ? 'false' : value;
}

/** Parses `args` against `spec`. Everything after `--` is positional. */
export function parseGoFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const values = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = splitFlag(arg);
    const kind = spec[name];
    if (kind === undefined) throw new FlagError(`unknown flag --${name}`);
    if (inline !== undefined || kind === 'bool') {
      values.set(name, kind === 'bool' ? goBool(inline) : inline!);
      continue;
    }
    const next = args[i + 1];
    if (next === undefined) throw new FlagError(`flag --${name} needs a value`);
    values.set(name, next);
    i++;
  }
  return { values, positionals };
}
