/**
 * The types of a CustomResourceDefinition's custom objects, for `loom types`: per served version, a
 * named type for each top-level field of its schema (`HelloWorldSpec`, `HelloWorldStatus`) and the
 * object's interface. A CRD serving one version gets plain names; one serving several gets the
 * version appended (`CatSetV1`, `CatSetV2beta1`), so that every version stays usable.
 */
import { isRecord, type KubeObject } from '../api/index.ts';
import { jsDoc, schemaType } from './types-schema.ts';
import { objectInterface, pascalCase, type ObjectField, type ObjectType } from './types-object.ts';

/** Typed by `KubeObject` itself, whatever the schema says. */
const IDENTIFYING = ['apiVersion', 'kind', 'metadata'];

/** The served versions (`name` and schema) of a CRD's `spec.versions`. */
function servedVersions(spec: Record<string, unknown>): { name: string; schema: Record<string, unknown> }[] {
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  return versions.flatMap((version) => {
    if (typeof version.name !== 'string' || version.served === false) return [];
    const schema = isRecord(version.schema) && isRecord(version.schema.openAPIV3Schema) ? version.schema.openAPIV3Schema : {};
    return [{ name: version.name, schema }];
  });
}

/** One top-level field's named type, `export type <Object><Field> = …;`. */
function fieldDeclaration(objectName: string, field: string, schema: unknown): { name: string; declaration: string } {
  const name = objectName + pascalCase(field);
  const doc = isRecord(schema) ? jsDoc(schema.description, schema.default, '') : '';
  return { name, declaration: `${doc}export type ${name} = ${schemaType(schema)};` };
}

/** The declarations of one version of the custom kind. */
function versionType(crd: { name: string; group: string; kind: string }, version: string, schema: Record<string, unknown>, name: string): ObjectType {
  const type = { apiVersion: `${crd.group}/${version}`, kind: crd.kind, name };
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const named = Object.keys(properties).filter((field) => !IDENTIFYING.includes(field)).map((field) => ({ field, ...fieldDeclaration(name, field, properties[field]) }));
  const fields: ObjectField[] = named.map(({ field, name: typeName }) => ({ name: field, type: typeName, required: required.includes(field) }));
  const about = `\`${crd.kind}\` of \`${type.apiVersion}\`, from the CustomResourceDefinition \`${crd.name}\`.`;
  const description = typeof schema.description === 'string' ? `${schema.description.trim()}\n\n${about}` : about;
  const status = named.find((entry) => entry.field === 'status')?.name;
  return { ...type, status, declarations: [...named.map((entry) => entry.declaration), objectInterface(type, jsDoc(description, undefined, ''), fields)] };
}

/** The types of every served version of `crd`; none when it lacks a group or a kind. */
export function crdTypes(crd: KubeObject): ObjectType[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const kind = isRecord(spec.names) ? spec.names.kind : undefined;
  if (typeof spec.group !== 'string' || typeof kind !== 'string') return [];
  const identity = { name: crd.metadata.name ?? '', group: spec.group, kind };
  const versions = servedVersions(spec);
  return versions.map(({ name, schema }) => versionType(identity, name, schema, versions.length === 1 ? kind : kind + pascalCase(name)));
}
