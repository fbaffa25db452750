/**
 * The hook types of one controller, for `loom types`: the keys of its observed objects
 * (`'ConfigMap.v1' | 'Pod.v1'`) and its requests and responses narrowed to its own types, named
 * after the controller (`hello-controller` → `HelloControllerRequest`), since a controller's name is
 * unique in a cluster while two controllers may share a parent type.
 *
 * A response names the object types it may return, so `desired()` inside it infers the type it
 * builds and checks its fields; a composite's response takes the parent's status type.
 */
import { typeKey } from '../api/index.ts';
import { INDENT, jsDoc, quote } from './types-schema.ts';
import { pascalCase, type ObjectType } from './types-object.ts';

/** A CompositeController with its rules resolved to generated types. */
export interface CompositeTypes {
  name: string;
  parent: ObjectType;
  children: readonly ObjectType[];
  customize: boolean;
}

/** A DecoratorController with its rules resolved to generated types. */
export interface DecoratorTypes {
  name: string;
  targets: readonly ObjectType[];
  attachments: readonly ObjectType[];
  customize: boolean;
}

/** A controller's declarations and the SDK types they name. */
export interface ControllerDeclarations {
  declarations: string[];
  uses: string[];
}

/** `'ConfigMap.v1' | 'Pod.v1'`, the object-map keys of `types`; `never` for none. */
function keyUnion(types: readonly ObjectType[]): string {
  const keys = [...new Set(types.map((type) => quote(typeKey(type.kind, type.apiVersion))))];
  return keys.length === 0 ? 'never' : keys.join(' | ');
}

/** `A | B`, the object types themselves; `never` for none. */
function typeUnion(types: readonly ObjectType[]): string {
  const names = [...new Set(types.map((type) => type.name))];
  return names.length === 0 ? 'never' : names.join(' | ');
}

function readonlyArray(types: readonly ObjectType[]): string {
  return types.length > 1 ? `readonly (${typeUnion(types)})[]` : `readonly ${typeUnion(types)}[]`;
}

function declare(doc: string, text: string): string {
  return `${jsDoc(doc, undefined, '')}${text}`;
}

/** `export interface <name> extends Omit<<base>, 'a' | 'b'> { a?: …; b?: … }`. */
function narrowedResponse(name: string, base: string, members: Readonly<Record<string, string>>): string {
  const keys = Object.keys(members).map(quote).join(' | ');
  const lines = Object.entries(members).map(([field, type]) => `${INDENT}${field}?: ${type};`);
  return `export interface ${name} extends Omit<${base}, ${keys}> {\n${lines.join('\n')}\n}`;
}

function customizeDeclaration(prefix: string, controller: string, target: string): string {
  return declare(`A customize request of \`${controller}\`.`, `export type ${prefix}CustomizeRequest = CustomizeRequest<${target}>;`);
}

/** The declarations of a CompositeController's hooks. */
export function compositeDeclarations(controller: CompositeTypes): ControllerDeclarations {
  const prefix = pascalCase(controller.name);
  const { parent, children, name } = controller;
  const members: Record<string, string> = { children: readonlyArray(children), ...(parent.status ? { status: `${parent.status} | null` } : {}) };
  const declarations = [
    declare(`The child types of \`${name}\`: the keys of \`request.children\`.`, `export type ${prefix}Children = ${keyUnion(children)};`),
    declare(`A sync or finalize request of \`${name}\`.`, `export type ${prefix}Request = CompositeRequest<${parent.name}, ${prefix}Children>;`),
    declare(`A sync or finalize response of \`${name}\`: its child types only${parent.status ? ', and the parent\'s status type' : ''}.`,
      narrowedResponse(`${prefix}Response`, 'CompositeResponse', members)),
    ...(controller.customize ? [customizeDeclaration(prefix, name, parent.name)] : []),
  ];
  return { declarations, uses: ['CompositeRequest', 'CompositeResponse', ...(controller.customize ? ['CustomizeRequest'] : [])] };
}

/** The declarations of a DecoratorController's hooks. */
export function decoratorDeclarations(controller: DecoratorTypes): ControllerDeclarations {
  const prefix = pascalCase(controller.name);
  const { targets, attachments, name } = controller;
  const declarations = [
    declare(`The object types \`${name}\` decorates.`, `export type ${prefix}Target = ${typeUnion(targets)};`),
    declare(`The attachment types of \`${name}\`: the keys of \`request.attachments\`.`, `export type ${prefix}Attachments = ${keyUnion(attachments)};`),
    declare(`A sync or finalize request of \`${name}\`.`, `export type ${prefix}Request = DecoratorRequest<${prefix}Target, ${prefix}Attachments>;`),
    declare(`A sync or finalize response of \`${name}\`: its attachment types only.`,
      narrowedResponse(`${prefix}Response`, 'DecoratorResponse', { attachments: readonlyArray(attachments) })),
    ...(controller.customize ? [customizeDeclaration(prefix, name, `${prefix}Target`)] : []),
  ];
  return { declarations, uses: ['DecoratorRequest', 'DecoratorResponse', ...(controller.customize ? ['CustomizeRequest'] : [])] };
}
