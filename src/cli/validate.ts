/**
 * `loom validate FILE…`: checks CompositeController and DecoratorController manifests offline, with no
 * cluster, and reports every problem at once as `file: path: message`.
 *
 * Output format (stable; scripts and editors may match on it):
 * - problem: `<file>: <doc><path>: <message>`; a warning: `warning: <file>: <doc><path>: <message>`.
 * - `<doc>` is `[i] ` (the 0-based index of the YAML document in the file, counting empty documents)
 *   when the file holds more than one non-empty document, and nothing otherwise.
 * - `<path>` is the field path (`spec.childResources[0].updateStrategy.method`); `(root)` for the
 *   whole document, `(read)` when the file cannot be read and `(yaml)` when it is not valid YAML.
 */
import { readFile } from 'node:fs/promises';
import { loadAll, YAMLException } from 'js-yaml';
import {
  KINDS,
  closestMatch,
  formatProblem,
  parseCompositeController,
  parseDecoratorController,
  type FieldProblem,
  type KubeObject,
  type ParseResult,
  isRecord,
} from '../api/index.ts';
import type { ReadTextFile } from '../offline/render-inputs.ts';
import { attachmentAnnotationWarnings } from './attachment-annotations.ts';
import { childPolicyChecks } from './child-policy-checks.ts';
import { functionNameChecks } from './function-names.ts';
import { expressionSchemaChecks } from './expression-schemas.ts';
import { jsonataSyntaxError } from './jsonata-syntax.ts';
import { resourceNameChecks } from './resource-names.ts';
import { undeclaredChildren } from './undeclared-children.ts';

/** What {@link validateFiles} found, every line already formatted (see the module comment). */
export interface ValidationResult {
  /** Problems that fail validation, in file and document order. */
  problems: string[];
  /** Things worth fixing that do not fail validation (unknown fields, ignored settings). */
  warnings: string[];
  /** Controller documents validated. */
  checked: number;
  /** Other documents (CRDs, parents, anything not a controller) skipped without checks. */
  skipped: number;
}

/** Reads one file as UTF-8 text (the offline tools' own file reader type). */
export type { ReadTextFile };

/** What the checks found in one document. */
interface DocumentReport {
  problems: FieldProblem[];
  warnings: FieldProblem[];
}

const COMPOSITE_HOOKS = ['sync', 'finalize', 'customize', 'preUpdateChild', 'postUpdateChild'] as const;
const DECORATOR_HOOKS = ['sync', 'finalize', 'customize'] as const;

/** The value at `keys` below `value`, or `undefined` when any step is missing or not an object. */
function at(value: unknown, ...keys: string[]): unknown {
  let node = value;
  for (const key of keys) node = isRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  return node;
}

/** Compiles every inline JSONata hook; `configMapRef` expressions live in the cluster and are not checked. */
function compileHooks(doc: unknown, names: readonly string[]): FieldProblem[] {
  return names.flatMap((name) => {
    const expression = at(doc, 'spec', 'hooks', name, 'jsonata', 'expression');
    // Missing, empty or mistyped expressions are the parser's to report.
    if (typeof expression !== 'string' || expression === '') return [];
    const message = jsonataSyntaxError(expression);
    return message === undefined ? [] : [{ path: `spec.hooks.${name}.jsonata.expression`, message }];
  });
}

function fromParse(result: ParseResult<unknown>): DocumentReport {
  return { problems: result.ok ? [] : [...result.problems], warnings: [...result.warnings] };
}

function addFindings(report: DocumentReport, found: DocumentReport): void {
  report.problems.push(...found.problems);
  report.warnings.push(...found.warnings);
}

function checkComposite(doc: unknown, crds: readonly KubeObject[]): DocumentReport {
  const parsed = parseCompositeController(doc);
  const report = fromParse(parsed);
  report.problems.push(...compileHooks(doc, COMPOSITE_HOOKS));
  if (!parsed.ok) return report;
  const { childResources: rules, hooks } = parsed.value.spec;
  addFindings(report, undeclaredChildren({ field: 'childResources', rules, hooks }, crds));
  addFindings(report, childPolicyChecks({ rules, hooks }, crds));
  addFindings(report, functionNameChecks({ hooks, childResources: rules }));
  addFindings(report, resourceNameChecks(parsed.value.spec, crds));
  addFindings(report, expressionSchemaChecks({ input: 'parent', parents: [parsed.value.spec.parentResource], children: { field: 'childResources', rules }, hooks }, crds));
  return report;
}

function checkDecorator(doc: unknown, crds: readonly KubeObject[]): DocumentReport {
  const parsed = parseDecoratorController(doc);
  const report = fromParse(parsed);
  report.problems.push(...compileHooks(doc, DECORATOR_HOOKS));
  if (!parsed.ok) return report;
  addFindings(report, undeclaredChildren({ field: 'attachments', rules: parsed.value.spec.attachments, hooks: parsed.value.spec.hooks }, crds));
  report.warnings.push(...attachmentAnnotationWarnings(parsed.value.spec.hooks));
  addFindings(report, functionNameChecks(parsed.value.spec));
  addFindings(report, resourceNameChecks(parsed.value.spec, crds));
  addFindings(report, expressionSchemaChecks({ input: 'object', parents: parsed.value.spec.resources, children: { field: 'attachments', rules: parsed.value.spec.attachments }, hooks: parsed.value.spec.hooks }, crds));
  return report;
}

/**
 * The checks for one document, or `undefined` when it is not a controller. Any version of the
 * metacontroller.k8s.io group is checked, so `metacontroller.k8s.io/v1` is reported, not skipped.
 */
const CONTROLLER_KINDS = [KINDS.compositeController.kind, KINDS.decoratorController.kind];

/**
 * The checks of a controller document, `undefined` for any other. A document is a controller when its
 * kind is one (in whatever group: the parser then names the group it must be in), or when its kind is
 * near one (`CompositeControler`): a misspelt controller is reported, not skipped as "not a controller".
 */
function checkDocument(doc: unknown, crds: readonly KubeObject[]): DocumentReport | undefined {
  const kind = at(doc, 'kind');
  if (kind === KINDS.compositeController.kind) return checkComposite(doc, crds);
  if (kind === KINDS.decoratorController.kind) return checkDecorator(doc, crds);
  const meant = typeof kind === 'string' ? closestMatch(kind, CONTROLLER_KINDS) : undefined;
  if (meant === undefined) return undefined;
  return { problems: [{ path: 'kind', message: `"${String(kind)}" is not a kind loom runs; did you mean "${meant}"?` }], warnings: [] };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The documents of `text`, or the YAML error as a problem message. */
function parseYaml(text: string): { docs: unknown[] } | { error: string } {
  try {
    return { docs: loadAll(text) };
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    const where = error.mark ? ` at line ${error.mark.line + 1}, column ${error.mark.column + 1}` : '';
    return { error: `syntax error${where}: ${error.reason}` };
  }
}

function emptyResult(): ValidationResult {
  return { problems: [], warnings: [], checked: 0, skipped: 0 };
}

/** One file's YAML documents, or the one problem that keeps them from being read. */
type FileDocuments = { file: string; docs: unknown[] } | { file: string; problem: string };

async function readDocuments(file: string, read: ReadTextFile): Promise<FileDocuments> {
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    // A file that cannot be read is one problem; the other files are still checked.
    return { file, problem: `${file}: (read): ${messageOf(error)}` };
  }
  const parsed = parseYaml(text);
  return 'error' in parsed ? { file, problem: `${file}: (yaml): ${parsed.error}` } : { file, docs: parsed.docs };
}

function validateDocuments(file: string, docs: readonly unknown[], crds: readonly KubeObject[]): ValidationResult {
  const result = emptyResult();
  const numbered = docs.filter((doc) => doc !== null && doc !== undefined).length > 1;
  docs.forEach((doc, i) => {
    if (doc === null || doc === undefined) return;
    const report = checkDocument(doc, crds);
    if (report === undefined) return void result.skipped++;
    result.checked++;
    const prefix = `${file}: ${numbered ? `[${i}] ` : ''}`;
    result.problems.push(...report.problems.map((p) => prefix + formatProblem(p)));
    result.warnings.push(...report.warnings.map((p) => `warning: ${prefix}${formatProblem(p)}`));
  });
  return result;
}

function isCrd(doc: unknown): doc is KubeObject {
  return at(doc, 'kind') === 'CustomResourceDefinition' && isRecord(at(doc, 'metadata'));
}

/**
 * Validates every CompositeController and DecoratorController in `paths` (each file may hold several
 * YAML documents); other documents are skipped and counted, and files holding no controller at all
 * are one problem. Pure apart from reading the files.
 *
 * Checks, all offline:
 * - the YAML parses (one `(yaml)` problem per file otherwise, with line and column);
 * - a kind near a controller kind (`CompositeControler`) is a problem with a did-you-mean, and a
 *   controller kind in another API group is checked (the parser names the group it must be in);
 * - the schema, hook form and defaults, exactly as loom parses a controller it runs: required fields,
 *   types, enum values (update method, hook version), one of webhook/jsonata, webhook targets and
 *   auth, durations, revision field paths, one rule per child or attachment type; the parser's
 *   warnings (unknown fields, unused hooks, raised values, ignored status checks) are warnings;
 * - every inline `jsonata.expression` compiles; errors give the line and column within the
 *   expression. Expressions from `configMapRef` live in the cluster and are not checked (no output);
 * - every function an inline expression or a child type's `readyWhen` calls is JSONata's, loom's, or
 *   bound by the expression itself (`function-names.ts`), with line, column and a did-you-mean;
 * - every rule's `resource` exists in its group, where the CRDs among the files or the built-in types
 *   tell (`resource-names.ts`), with a did-you-mean;
 * - every object an inline sync or finalize expression builds literally (a `kind` string beside
 *   `apiVersion` and `metadata`) is of a declared child (attachment) type, as read from the CRDs in the
 *   files given, the built-in types, or else the kind's regular plural; a kind near a known one gets
 *   a did-you-mean instead of a rule to add;
 * - loom's ordering and readiness (docs/ordering-and-readiness.md): every child type's `readyWhen`
 *   compiles; the loom.dev/* annotations of each literal child parse (wave, depends-on, policies),
 *   its ready-when compiles, each sibling it depends on is of a declared child kind (with a
 *   did-you-mean), and among the literal children none depends on a sibling of a later wave and no
 *   dependencies form a cycle; a literal attachment of a DecoratorController that carries an order or
 *   policy annotation, which a decorator ignores, is warned about;
 * - against the parent's CRD among the files (the schema it serves for `parentResource`'s version; a
 *   DecoratorController's one resource): every path an inline sync, finalize or customize expression
 *   reads from `parent` (a DecoratorController's sync and finalize: `object`) names a field of the
 *   schema, every path a sync or finalize expression reads from `children` (`attachments`) starts with
 *   a declared type's key (when every declared kind is known) and names fields of its CRD's schema,
 *   and every field of the status a sync or finalize answer builds literally is in the status schema
 *   (the API server would drop it), with line, column and a did-you-mean; nothing is said below a
 *   part of a schema that allows anything;
 *
 * Not checked (needs a cluster): that the named resources exist where neither the files nor the
 * built-in types tell, that webhooks answer, that ConfigMap/Secret references resolve.
 */
export async function validateFiles(paths: readonly string[], readTextFile: ReadTextFile = (p) => readFile(p, 'utf8')): Promise<ValidationResult> {
  const files = await Promise.all(paths.map((path) => readDocuments(path, readTextFile)));
  // A controller's CRDs often come in another file of the same set: they say which kinds its rules name.
  const crds = files.flatMap((f) => ('docs' in f ? f.docs.filter(isCrd) : []));
  const perFile = files.map((f) => ('docs' in f ? validateDocuments(f.file, f.docs, crds) : { ...emptyResult(), problems: [f.problem] }));
  const total = perFile.reduce((sum, one) => ({
    problems: [...sum.problems, ...one.problems],
    warnings: [...sum.warnings, ...one.warnings],
    checked: sum.checked + one.checked,
    skipped: sum.skipped + one.skipped,
  }), emptyResult());
  // Validating files that hold no controller at all is a mistake (a wrong file, a misspelt kind), not a pass.
  if (total.checked === 0 && total.problems.length === 0) {
    total.problems.push(`loom validate: no CompositeController or DecoratorController found (${plural(total.skipped, 'other document')} skipped)`);
  }
  return total;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * The text `loom validate` prints: warnings, then problems, one a line, then a summary line. Empty
 * when every controller is clean, so a valid manifest prints nothing.
 */
export function formatValidation(result: ValidationResult): string {
  const lines = [...result.warnings, ...result.problems];
  if (lines.length === 0) return '';
  const summary = `${plural(result.problems.length, 'problem')}, ${plural(result.warnings.length, 'warning')} in ${plural(result.checked, 'controller')}`;
  return `${[...lines, summary].join('\n')}\n`;
}
