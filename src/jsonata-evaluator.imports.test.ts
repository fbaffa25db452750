/**
 * What an evaluator process loads. loom starts one per evaluator slot and each lives long, so it
 * imports the modules it runs straight, not through a folder's `index.ts`, which would load the
 * whole folder (issue: `evaluator-protocol.ts` took `boundedText` from `api/index.ts`, and every
 * evaluator loaded all of `api/`). Checked in a real evaluator whose module hook records every
 * module of loom's it loads, up to its `ready`.
 */
import { fork } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const ENTRY = new URL('./jsonata-evaluator.ts', import.meta.url);
const SRC = new URL('./', import.meta.url).href;

/** Sends, with `ready`'s turn, the loom modules (paths under src/) the process has loaded. */
const RECORD_MODULES = `
  import { registerHooks } from 'node:module';
  const modules = new Set();
  registerHooks({ resolve(specifier, context, next) {
    const result = next(specifier, context);
    if (result.url.startsWith(${JSON.stringify(SRC)})) modules.add(result.url.slice(${SRC.length}));
    return result;
  } });
  process.on('disconnect', () => process.stderr.write('MODULES ' + JSON.stringify([...modules]) + '\\n'));
`;

/** Starts the evaluator, waits for its `ready`, lets it go, and lists the modules it loaded. */
async function modulesLoadedByEvaluator(): Promise<string[]> {
  const child = fork(ENTRY, [], { execArgv: ['--import', `data:text/javascript,${encodeURIComponent(RECORD_MODULES)}`], env: {}, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => void (stderr += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.on('message', (message: { type?: string }) => {
      if (message.type === 'ready') resolve();
    });
    void exited.then(() => reject(new Error(`the evaluator exited before it was ready: ${stderr}`)));
  });
  child.disconnect(); // it exits when loom goes away
  await exited;
  const line = stderr.split('\n').find((l) => l.startsWith('MODULES '));
  if (line === undefined) throw new Error(`no module list: ${stderr}`);
  return JSON.parse(line.slice('MODULES '.length)) as string[];
}

describe('JSONata evaluator process', () => {
  it('loads the modules it runs, and no folder through its index', async () => {
    const loaded = await modulesLoadedByEvaluator();
    expect(loaded).toContain('hooks/evaluator-service.ts');
    expect(loaded).toContain('api/bounded-text.ts');
    expect(loaded.filter((path) => path.endsWith('/index.ts'))).toEqual([]);
  });
});
