/**
 * The module `loom types` writes: the types of every CRD in the files, the built-in kinds the
 * controllers in them name, and each controller's hook types, importing only `kube-loom-sdk`. Rules
 * resolve to kinds as `loom render` resolves them (CRDs in the files, then the built-in table); a
 * rule neither names is a problem, reported with every other one at once.
 */
import {
  API_GROUP, formatProblem, KINDS, parseCompositeController, parseDecoratorController,
  typeKey, type CompositeController, type DecoratorController, type KubeObject, type ParseResult, type ResourceRule,
} from '../api/index.ts';
import { throwIfAny } from '../offline/render-error.ts';
import { typeCatalog, type TypeCatalog } from '../offline/render-types.ts';
import { builtInType } from './types-builtin.ts';
import { compositeDeclarations, decoratorDeclarations, type ControllerDeclarations } from './types-controllers.ts';
import { crdTypes } from './types-crd.ts';
import type { ObjectType } from './types-object.ts';
import { quote } from './types-schema.ts';

/** The objects of one input file. */
export interface TypesSource {
  file: string;
  objects: readonly KubeObject[];
}

const isCrd = (obj: KubeObject): boolean => obj.kind === 'CustomResourceDefinition' && obj.apiVersion.startsWith('apiextensions.k8s.io/');
const isControllerOf = (kind: string) => (obj: KubeObject): boolean => obj.kind === kind && obj.apiVersion.startsWith(`${API_GROUP}/`);

/** Resolves rules to generated types, collecting the built-in ones it meets and every problem. */
class TypeResolver {
  readonly builtIns = new Map<string, ObjectType>();
  readonly problems: string[] = [];
  private readonly builtInCatalog = typeCatalog({ crds: [], examples: [] });
  private readonly declared: TypeCatalog;
  private readonly custom: readonly ObjectType[];

  constructor(crds: readonly KubeObject[], custom: readonly ObjectType[]) {
    this.declared = typeCatalog({ crds, examples: [] });
    this.custom = custom;
  }

  /** The type `rule` names, or `undefined` (and a problem at `where`) when neither a CRD nor the table knows it. */
  resolve(rule: ResourceRule, where: string): ObjectType | undefined {
    const kind = this.declared.resolve(rule)?.kind;
    const custom = this.custom.find((type) => type.apiVersion === rule.apiVersion && type.kind === kind);
    if (custom) return custom;
    const builtIn = this.builtInCatalog.resolve(rule);
    if (builtIn) return this.builtIn(builtIn.apiVersion, builtIn.kind);
    this.problems.push(`${where}: ${rule.resource} of ${rule.apiVersion} is neither a served version of a CustomResourceDefinition in the files nor a Kubernetes built-in type`);
    return undefined;
  }

  all(rules: readonly ResourceRule[], where: (i: number) => string): ObjectType[] | undefined {
    const types = rules.map((rule, i) => this.resolve(rule, where(i)));
    return types.every((type) => type !== undefined) ? types : undefined;
  }

  private builtIn(apiVersion: string, kind: string): ObjectType {
    const key = typeKey(kind, apiVersion);
    const type = this.builtIns.get(key) ?? builtInType(apiVersion, kind);
    this.builtIns.set(key, type);
    return type;
  }
}

/** The parsed controller, or `undefined` with its problems pushed as `<where>: path: message`. */
function parsed<T>(result: ParseResult<T>, where: string, problems: string[]): T | undefined {
  if (result.ok) return result.value;
  problems.push(...result.problems.map((problem) => `${where}: ${formatProblem(problem)}`));
  return undefined;
}

function compositeOf(controller: CompositeController, file: string, resolver: TypeResolver): ControllerDeclarations | undefined {
  const { spec, name } = controller;
  const parent = resolver.resolve(spec.parentResource, `${file}: ${name}: spec.parentResource`);
  const children = resolver.all(spec.childResources, (i) => `${file}: ${name}: spec.childResources[${i}]`);
  return parent && children && compositeDeclarations({ name, parent, children, customize: spec.hooks.customize !== undefined });
}

function decoratorOf(controller: DecoratorController, file: string, resolver: TypeResolver): ControllerDeclarations | undefined {
  const { spec, name } = controller;
  const targets = resolver.all(spec.resources, (i) => `${file}: ${name}: spec.resources[${i}]`);
  const attachments = resolver.all(spec.attachments, (i) => `${file}: ${name}: spec.attachments[${i}]`);
  return targets && attachments && decoratorDeclarations({ name, targets, attachments, customize: spec.hooks.customize !== undefined });
}

/** Every controller of a file as its declarations; `undefined` for one with problems (pushed onto `problems`). */
function controllersOf({ file, objects }: TypesSource, resolver: TypeResolver, problems: string[]): (ControllerDeclarations | undefined)[] {
  const where = (obj: KubeObject) => `${file}: ${obj.metadata.name}`;
  const composites = objects.filter(isControllerOf(KINDS.compositeController.kind)).map((obj) => parsed(parseCompositeController(obj), where(obj), problems));
  const decorators = objects.filter(isControllerOf(KINDS.decoratorController.kind)).map((obj) => parsed(parseDecoratorController(obj), where(obj), problems));
  return [
    ...composites.map((controller) => controller && compositeOf(controller, file, resolver)),
    ...decorators.map((controller) => controller && decoratorOf(controller, file, resolver)),
  ];
}

/** The CRDs' types; a CRD that yields none is a problem. */
function customTypes(sources: readonly TypesSource[], problems: string[]): ObjectType[] {
  return sources.flatMap(({ file, objects }) => objects.filter(isCrd).flatMap((crd) => {
    const types = crdTypes(crd);
    if (types.length === 0) problems.push(`${file}: CustomResourceDefinition ${crd.metadata.name}: no served version with spec.group and spec.names.kind`);
    return types;
  }));
}

/**
 * Names declared twice, which would not compile: a kind in two groups or versions (or a file given
 * twice), a built-in's name, two controllers whose names differ only in punctuation.
 */
function nameProblems(declarations: readonly string[]): string[] {
  const names = declarations.flatMap((text) => [...text.matchAll(/^export (?:type|interface) (\w+)/gm)].map((match) => match[1]!));
  const twice = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))];
  return twice.map((name) => `${name} would be declared twice (two kinds or controllers of that name); generate them into separate files`);
}

/** `import type { … } from 'kube-loom-sdk';` for the names used, sorted. */
function importLine(names: readonly string[]): string {
  return `import type { ${[...new Set(names)].sort().join(', ')} } from ${quote('kube-loom-sdk')};`;
}

/**
 * The TypeScript module for the objects of `sources`. `command` is the command line written into its
 * header, so a reader knows how to make it again. Throws a `RenderError` with every problem.
 */
export function typesModule(sources: readonly TypesSource[], command: string): string {
  const problems: string[] = [];
  const custom = customTypes(sources, problems);
  const resolver = new TypeResolver(sources.flatMap((source) => source.objects.filter(isCrd)), custom);
  const controllers = sources.flatMap((source) => controllersOf(source, resolver, problems));
  const objects = [...custom, ...resolver.builtIns.values()];
  if (objects.length === 0 && controllers.length === 0) problems.push('no CustomResourceDefinition, CompositeController or DecoratorController in the files');
  const declared = controllers.filter((controller) => controller !== undefined);
  const body = [...objects.flatMap((type) => type.declarations), ...declared.flatMap((controller) => controller.declarations)];
  throwIfAny([...problems, ...resolver.problems, ...nameProblems(body)]);
  const header = `// Generated by \`${command}\`; do not edit: run it again after changing those files.`;
  const uses = [...(objects.length > 0 ? ['KubeObject'] : []), ...declared.flatMap((controller) => controller.uses)];
  return `${[`${header}\n${importLine(uses)}`, ...body].join('\n\n')}\n`;
}
