/**
 * The TypeScript hook of a `loom init --hook typescript` scaffold: `hook.ts` on kube-loom-sdk, its
 * unit test through `testHook`, and the tsconfig both are checked with. The hook answers exactly as
 * the JSONata expression of the other choice does (same child, same status), so either scaffold
 * renders the same golden.
 */
import { hookFields, type Scaffold } from './init-names.ts';

/** The scaffold's hook imports the SDK by its package name (loom's own sources never do). */
const SDK = 'kube-loom-sdk';

/** What differs between a composite and a decorator hook. */
function hookShape(scaffold: Scaffold) {
  const composite = scaffold.controller === 'composite';
  return {
    ...hookFields(scaffold.controller),
    requestType: composite ? 'CompositeRequest' : 'DecoratorRequest',
    serverKey: composite ? 'composite' : 'decorator',
  };
}

/** `hook.ts`: the sync function, a server factory, the default export `loom render` loads, and `node hook.ts`. */
export function hookTs(scaffold: Scaffold): string {
  const { kind, camel, controllerName } = scaffold.names;
  const { object, observed, requestType, serverKey } = hookShape(scaffold);
  return `/**
 * The sync hook of ${controllerName}: each ${kind} gets a ConfigMap of the same name holding
 * spec.message, and its status says whether that ConfigMap exists.
 *
 * \`npm start\` serves it on HOST:PORT (default 0.0.0.0:8080), where controller.yaml's \`url\` points;
 * \`loom render --hook-module hook.ts\` loads the default export and calls it in-process.
 */
import {
  createHookServer, desired, observedChild, type ${requestType}, type HookServer, type HookServerOptions, type KubeObject, type ObjectMeta,
} from '${SDK}';

/** A ${kind}, as far as the hook reads it (crd.yaml holds the schema). */
interface ${kind} extends KubeObject {
  // Named always: the SDK answers 400 to a request whose ${object} has no name.
  metadata: ObjectMeta & { name: string };
  spec: { message: string };
}

/** The hook's answer for one ${kind}. */
export function ${camel}Sync(request: ${requestType}<${kind}, 'ConfigMap.v1'>) {
  const { name } = request.${object}.metadata;
  return {
    ${observed}: [desired({ apiVersion: 'v1', kind: 'ConfigMap', name, data: { message: request.${object}.spec.message } })],
    // Every field written here needs its place in crd.yaml's status schema.
    status: { ready: observedChild(request, 'ConfigMap.v1', name) !== undefined },
  };
}

/** A hook server answering \`POST /sync\`; \`logger\` defaults to the SDK's own (pino at info). */
export function ${camel}Hook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({ ...options, ${serverKey}: { sync: ${camel}Sync } });
}

/** For \`loom render --hook-module\`: a quiet server, called in-process, never listening. */
export default (): HookServer => ${camel}Hook({ logger: false });

if (import.meta.main) {
  await ${camel}Hook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
`;
}

/** `hook.test.ts`: the hook's answers through `testHook`, with no socket and no cluster. */
export function hookTestTs(scaffold: Scaffold): string {
  const { kind, camel, apiVersion, controllerName } = scaffold.names;
  const { object, observed } = hookShape(scaffold);
  return `import { testHook } from '${SDK}';
import { describe, expect, it } from 'vitest';
import { ${camel}Hook } from './hook.ts';

const ${object} = { apiVersion: '${apiVersion}', kind: '${kind}', metadata: { name: 'demo', namespace: 'default' }, spec: { message: 'Hello' } };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo', namespace: 'default' }, data: { message: 'Hello' } };

describe('${controllerName} sync hook', () => {
  const hook = testHook(${camel}Hook({ logger: false }));

  it('asks for a ConfigMap holding the message, and is not ready before it exists', async () => {
    const { statusCode, body } = await hook.sync({ ${object}, ${observed}: { 'ConfigMap.v1': {} } });
    expect(statusCode).toBe(200);
    expect(body).toEqual({
      ${observed}: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo' }, data: { message: 'Hello' } }],
      status: { ready: false },
    });
  });

  // loom sends hook version v1 (keys by name) or v2 (namespace/name), as the controller asks.
  it.each([
    ['v1', { demo: configMap }],
    ['v2', { 'default/demo': configMap }],
  ])('is ready once the ConfigMap exists (%s keys)', async (_version, configMaps) => {
    const { body } = await hook.sync({ ${object}, ${observed}: { 'ConfigMap.v1': configMaps } });
    expect(body.status).toEqual({ ready: true });
  });

  it('answers 400 to a request with no ${object}', async () => {
    expect(await hook.sync({ ${observed}: {} })).toMatchObject({ statusCode: 400, body: { error: 'request.${object}: is required' } });
  });
});
`;
}

/**
 * `tsconfig.json`: `tsc` only checks (Node runs hook.ts as it is); `erasableSyntaxOnly` keeps to
 * the TypeScript Node can strip. As strict as loom's own settings, which the SDK is written for.
 */
export function tsconfigJson(): string {
  const compilerOptions = {
    target: 'es2024',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    erasableSyntaxOnly: true,
    skipLibCheck: true,
  };
  return `${JSON.stringify({ compilerOptions, include: ['*.ts'] }, null, 2)}\n`;
}
