/**
 * The start every command with flags of its own shares: read the options, or print the help, or
 * print the flag problem (one `loom <command>: …` line each, as `loom run` says them) and a pointer
 * to the help, with the exit code to end on.
 */
import { FlagError } from './go-flags.ts';

/** Where a command writes. */
export interface CommandStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** A command's name, how it reads its flags, and its help. */
export interface CommandFlags<O> {
  name: string;
  parse(args: readonly string[]): O | 'help';
  usage: string;
}

/** The options `command` reads from `args`, or `{ exit }` once help (0) or a flag problem (2) was printed. */
export function commandOptions<O>(command: CommandFlags<O>, args: readonly string[], io: CommandStreams): O | { exit: number } {
  let options: O | 'help';
  try {
    options = command.parse(args);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    const name = `loom ${command.name}`;
    io.stderr.write(`${error.message.split('\n').map((line) => `${name}: ${line}\n`).join('')}run '${name} --help' for its flags\n`);
    return { exit: 2 };
  }
  if (options !== 'help') return options;
  io.stdout.write(command.usage);
  return { exit: 0 };
}
