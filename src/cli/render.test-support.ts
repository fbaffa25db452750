/**
 * What the `loom render` tests share: running the command with captured output, reading the
 * fixtures of `testdata/render/` by bare name (so messages start with the name), and a local hook
 * server standing in for a webhook the user runs.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { runRender, type RenderIO } from './render.ts';
import type { ReadTextFile } from './validate.ts';

/** The folder of one fixture case. */
export function caseDir(name: string): URL {
  return new URL(`testdata/render/${name}/`, import.meta.url);
}

/** What one run printed and its exit code. */
export interface RenderRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where a run reads its files. */
export interface RunOptions {
  dir: URL;
  /** Replaces a file's text (after `PORT` was filled in); absent: read as is. */
  edit?: Record<string, (text: string) => string>;
  /** The hook server's port, put where `PORT` appears in the fixtures. */
  port?: number;
  /** Starts each JSONata evaluator process; absent: loom's own start. */
  startEvaluator?: RenderIO['startEvaluator'];
}

/** Reads `dir/<name>`, fills in `PORT` and applies the case's edit. */
export function fixtureReader(options: RunOptions): ReadTextFile {
  return async (name) => {
    const text = (await readFile(new URL(name, options.dir), 'utf8')).replaceAll('PORT', String(options.port ?? 0));
    return options.edit?.[name]?.(text) ?? text;
  };
}

/** Runs `loom render ARGS` with the fixture reader and captured output. */
export async function runWith(args: readonly string[], options: RunOptions): Promise<RenderRun> {
  let stdout = '';
  let stderr = '';
  const io: RenderIO = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    readTextFile: fixtureReader(options),
    cwd: fileURLToPath(options.dir),
    startEvaluator: options.startEvaluator,
  };
  const code = await runRender(args, io);
  return { code, stdout, stderr };
}

interface HelloRequest {
  parent: { metadata: { name: string }; spec?: { who?: string } };
  children: Record<string, Record<string, unknown> | undefined>;
}

/**
 * The hello hook as a webhook: `/sync` greets, `/finalize` is done once no ConfigMap is left,
 * `/boom` fails with 500 and `/garbled` answers with a child that has no kind.
 */
export function helloHookServer(): FastifyInstance {
  const app = Fastify();
  app.post('/sync', (request) => {
    const { parent, children } = request.body as HelloRequest;
    const name = `${parent.metadata.name}-greeting`;
    const greeting = `Hello, ${parent.spec?.who ?? 'world'}!`;
    return {
      status: { greeting, ready: Object.hasOwn(children['ConfigMap.v1'] ?? {}, name) },
      children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { greeting } }],
    };
  });
  app.post('/finalize', (request) => {
    const { children } = request.body as HelloRequest;
    return { finalized: Object.keys(children['ConfigMap.v1'] ?? {}).length === 0, children: [] };
  });
  app.post('/boom', async (_request, reply) => reply.code(500).send('boom'));
  app.post('/garbled', () => ({ children: [{ apiVersion: 'v1', metadata: { name: 'x' } }] }));
  return app;
}
