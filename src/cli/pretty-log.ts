/**
 * pino's JSON lines as text for a person at a terminal: `12:04:05.120 WARN  could not record event
 * reason=SyncError object=default/web err="…"`. A destination stream, so pino itself stays on its fast
 * JSON path and no worker thread is started; only a terminal, where lines are few, pays for the parse.
 */

/** Where the text goes (stderr). */
export interface TextSink {
  write(text: string): unknown;
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** ANSI colour of each level: grey, grey, green, yellow, red, red. */
const LEVEL_COLORS: Readonly<Record<number, string>> = { 10: '90', 20: '90', 30: '32', 40: '33', 50: '31', 60: '31' };
/** Fields every line has, shown in their own places or not at all. */
const FRAME = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

function paint(colors: boolean, code: string, text: string): string {
  return colors ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** `HH:MM:SS.mmm` of the local time: the date is today's for anyone reading a terminal. */
function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** A field's value: bare when it is one plain word, else JSON (quoted strings, objects inline). */
function valueText(value: unknown): string {
  if (typeof value === 'string' && /^[\w./:@-]+$/.test(value)) return value;
  return JSON.stringify(value) ?? String(value);
}

/** An error as its message, and its stack too from `error` up, where someone will want to know where. */
function errorText(err: unknown, level: number): { inline: string; stack?: string } {
  if (typeof err !== 'object' || err === null) return { inline: valueText(err) };
  const { message, stack } = err as { message?: unknown; stack?: unknown };
  const inline = valueText(typeof message === 'string' ? message : err);
  return level >= 50 && typeof stack === 'string' ? { inline, stack } : { inline };
}

/** Time, level and message. */
function header(record: Record<string, unknown>, level: number, colors: boolean): string {
  const name = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
  const message = typeof record.msg === 'string' ? record.msg : '';
  return `${paint(colors, '90', clock(record.time))} ${paint(colors, LEVEL_COLORS[level] ?? '0', name)} ${message}`;
}

/** One JSON line as text; a line that is not pino's JSON is passed through as it is. */
export function formatLogLine(line: string, colors: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = typeof record.level === 'number' ? record.level : 30;
  const parts = [header(record, level, colors)];
  let stack: string | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (FRAME.has(key) || value === undefined) continue;
    const shown = key === 'err' ? errorText(value, level) : { inline: valueText(value) };
    stack ??= shown.stack;
    parts.push(`${paint(colors, '2', `${key}=`)}${shown.inline}`);
  }
  const indented = stack ? `\n${stack.split('\n').map((l) => `    ${l}`).join('\n')}` : '';
  return `${parts.join(' ')}${indented}\n`;
}

/** A pino destination that writes each line as text to `sink`. */
export function textLogStream(sink: TextSink, colors: boolean): { write(line: string): void } {
  return { write: (line) => void sink.write(formatLogLine(line, colors)) };
}
