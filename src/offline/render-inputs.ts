/**
 * The files `loom render` reads, checked the way `loom validate` reports: every problem as
 * `<file>: <doc><path>: <message>`, where `<doc>` is `[i] ` when the file holds more than one YAML
 * document. Object files (`--observed`, `--related`) are a YAML stream of objects, a `List`
 * (any `kind` ending in `List` with `items`), or both; a List's items are addressed `items[i].…`.
 */
import { loadAll, YAMLException } from 'js-yaml';
import {
  API_GROUP, KINDS, formatProblem, isRecord, parseCompositeController, parseDecoratorController,
  type CompositeController, type DecoratorController, type FieldProblem, type KubeObject,
} from '../api/index.ts';
import { RenderError, throwIfAny } from './render-error.ts';
/** Reads one file as UTF-8 text; rejects when it cannot. */
export type ReadTextFile = (path: string) => Promise<string>;

/** A controller manifest, parsed as loom parses the controllers it runs. */
export type LoadedController = (
  | { kind: 'composite'; controller: CompositeController }
  | { kind: 'decorator'; controller: DecoratorController }
) & {
  /** `cc.yaml: ` (or `cc.yaml: [1] `): how messages about the manifest start. */
  where: string;
  /** CustomResourceDefinitions in the same file, for {@link typeCatalog}. */
  crds: KubeObject[];
  /** The parser's warnings, formatted. */
  warnings: string[];
};

/** An object with where it was found, for messages. */
interface Located {
  value: unknown;
  /** `[1] items[2].`: the prefix of a path inside this object. */
  at: string;
}

/** The placeholder uid of a parent that has none: loom's owner references and selectors need one. */
export const PLACEHOLDER_UID = '00000000-0000-0000-0000-000000000000';

async function readDocuments(file: string, read: ReadTextFile): Promise<unknown[]> {
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    throw new RenderError(`${file}: (read): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    return loadAll(text);
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    const where = error.mark ? ` at line ${error.mark.line + 1}, column ${error.mark.column + 1}` : '';
    throw new RenderError(`${file}: (yaml): syntax error${where}: ${error.reason}`, { cause: error });
  }
}

/** The non-empty documents of `file`, each with its `[i] ` prefix when there are several. */
async function locatedDocuments(file: string, read: ReadTextFile): Promise<Located[]> {
  const docs = await readDocuments(file, read);
  const numbered = docs.filter((doc) => doc !== null && doc !== undefined).length > 1;
  return docs.flatMap((value, i) => (value === null || value === undefined ? [] : [{ value, at: numbered ? `[${i}] ` : '' }]));
}

function isList(value: unknown): value is { kind: string; items: unknown[] } {
  return isRecord(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items);
}

/** Problems that keep `value` from being an object loom can work with. */
function objectProblems(value: unknown): FieldProblem[] {
  if (!isRecord(value)) return [{ path: '', message: 'expected an object' }];
  const required = (ok: boolean, path: string): FieldProblem[] => (ok ? [] : [{ path, message: 'is required' }]);
  const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v !== '';
  const metadata = value.metadata;
  return [
    ...required(nonEmpty(value.apiVersion), 'apiVersion'),
    ...required(nonEmpty(value.kind), 'kind'),
    ...required(isRecord(metadata), 'metadata'),
    ...required(!isRecord(metadata) || nonEmpty(metadata.name), 'metadata.name'),
  ];
}

function problemLine(file: string, at: string, problem: FieldProblem): string {
  // A List item's own problem reads `items[2]: …`; a document's reads `(root): …` as in `loom validate`.
  const root = at.endsWith('.') ? at.slice(0, -1) : `${at}(root)`;
  return `${file}: ${problem.path === '' ? root : at + problem.path}: ${problem.message}`;
}

/** Every object of an object file, Lists flattened; throws with every problem found. */
export async function loadObjects(file: string, read: ReadTextFile): Promise<KubeObject[]> {
  const located = (await locatedDocuments(file, read)).flatMap((doc) =>
    isList(doc.value) ? doc.value.items.map((value, i) => ({ value, at: `${doc.at}items[${i}].` })) : [doc],
  );
  throwIfAny(located.flatMap(({ value, at }) => objectProblems(value).map((p) => problemLine(file, at, p))));
  return located.map(({ value }) => value as KubeObject);
}

/**
 * The one object of the `--parent` file. A parent without `metadata.uid` gets {@link PLACEHOLDER_UID}
 * (a note says so): every owner reference and generated selector is made from it.
 */
export async function loadParent(file: string, read: ReadTextFile): Promise<{ parent: KubeObject; notes: string[] }> {
  const objects = await loadObjects(file, read);
  if (objects.length !== 1) throw new RenderError(`${file}: (root): expected one object, found ${objects.length}`);
  const parent = structuredClone(objects[0]!);
  if (typeof parent.metadata.uid === 'string' && parent.metadata.uid !== '') return { parent, notes: [] };
  parent.metadata.uid = PLACEHOLDER_UID;
  return { parent, notes: [`${file}: metadata.uid is not set; using ${PLACEHOLDER_UID}`] };
}

function controllerKind(value: unknown): 'composite' | 'decorator' | 'crd' | undefined {
  if (!isRecord(value) || typeof value.apiVersion !== 'string') return undefined;
  if (value.kind === 'CustomResourceDefinition' && value.apiVersion.startsWith('apiextensions.k8s.io/')) return 'crd';
  if (value.apiVersion.split('/')[0] !== API_GROUP) return undefined;
  if (value.kind === KINDS.compositeController.kind) return 'composite';
  return value.kind === KINDS.decoratorController.kind ? 'decorator' : undefined;
}

/**
 * The one CompositeController or DecoratorController of the `--controller` file (other documents,
 * such as the parent's CRD, may sit next to it), parsed with every default applied.
 */
export async function loadController(file: string, read: ReadTextFile): Promise<LoadedController> {
  const docs = await locatedDocuments(file, read);
  const controllers = docs.filter((doc) => ['composite', 'decorator'].includes(controllerKind(doc.value) ?? ''));
  const crds = docs.filter((doc) => controllerKind(doc.value) === 'crd').map((doc) => doc.value as KubeObject);
  if (controllers.length !== 1) {
    throw new RenderError(`${file}: (root): expected one CompositeController or DecoratorController, found ${controllers.length}`);
  }
  const { value, at } = controllers[0]!;
  const where = `${file}: ${at}`;
  const kind = controllerKind(value) === 'composite' ? 'composite' : 'decorator';
  const parsed = kind === 'composite' ? parseCompositeController(value) : parseDecoratorController(value);
  const warnings = parsed.warnings.map((w) => `warning: ${where}${formatProblem(w)}`);
  if (!parsed.ok) throw new RenderError(parsed.problems.map((p) => where + formatProblem(p)).join('\n'));
  const controller = parsed.value;
  return kind === 'composite'
    ? { kind, controller: controller as CompositeController, where, crds, warnings }
    : { kind, controller: controller as DecoratorController, where, crds, warnings };
}
