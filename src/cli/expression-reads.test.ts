import { describe, expect, it } from 'vitest';
import { fieldReads } from './expression-reads.ts';

/** The reads as `names@line:column` of the last name, compact to compare. */
function reads(expression: string, field = 'parent'): string[] {
  return fieldReads(expression, field).map((read) => `${read.names.join('.')}@${read.places.map((p) => `${p.line}:${p.column}`).join(',')}`);
}

describe('fieldReads', () => {
  it('finds a path read from the field, with the place of each name', () => {
    expect(reads('parent.spec.mesage')).toEqual(['spec.mesage@1:8,1:13']);
    expect(reads('{\n  "data": { "m": parent.spec.mesage }\n}')).toEqual(['spec.mesage@2:25,2:30']);
  });

  it('reads from $ and $$ as from the input', () => {
    expect(reads('$.parent.spec.x')).toEqual(['spec.x@1:10,1:15']);
    expect(reads('$$.parent.spec.x')).toEqual(['spec.x@1:11,1:16']);
  });

  it('reads quoted names', () => {
    expect(reads('parent.`my-field`.x')).toEqual(['my-field.x@1:8,1:19']);
  });

  it('reads in constructors, conditions, blocks, function arguments and lambdas defined at the top', () => {
    const expression = '( $a := parent.spec.a; { "b": parent.spec.b ? [parent.spec.c] : $string(parent.spec.d), "e": $map([1], function($v) { parent.spec.e }) } )';
    expect(fieldReads(expression, 'parent').map((r) => r.names.join('.'))).toEqual(['spec.a', 'spec.b', 'spec.c', 'spec.d', 'spec.e']);
  });

  it('reads a path once where JSONata shares its node (`??`)', () => {
    expect(reads('parent.spec.a ?? 1')).toEqual(['spec.a@1:8,1:13']);
  });

  it('reads through a filter, which keeps the items it selects', () => {
    expect(reads('parent.spec.ports[0].port')).toEqual(['spec.ports.port@1:8,1:13,1:22']);
    expect(reads('parent.spec.ports[name = "http"][0].port')).toEqual(['spec.ports.port@1:8,1:13,1:37']);
  });

  it('reads through a wildcard, which it names `*`', () => {
    expect(reads('parent.spec.*.x')).toEqual(['spec.*.x@1:8,1:13,1:15']);
    expect(reads('children."ConfigMap.v1".*.data.x', 'children')).toEqual(['ConfigMap.v1.*.data.x@1:10,1:25,1:27,1:32']);
  });

  it('reads loom’s $child(children, "Kind.apiVersion", name) as the key, one object (`*`) and the fields after', () => {
    expect(reads('$child(children, "Website.example.com/v1", "web").spec.x', 'children')).toEqual([
      'Website.example.com/v1@1:18', 'Website.example.com/v1.*.spec.x@1:18,1:18,1:51,1:56',
    ]);
    expect(reads('$child($x, "Website.example.com/v1", "web").spec.x', 'children')).toEqual([]);
    expect(reads('$child(children, $k, "web").spec.x', 'children')).toEqual([]);
  });

  it('stops at the first step that is not a plain name or a filtered one', () => {
    expect(reads('parent.spec.ports[0]#$i.port')).toEqual(['spec.ports@1:8,1:13']);
    expect(reads('parent.spec.ports@$p.port')).toEqual(['spec.ports@1:8,1:13']);
    expect(reads('parent.spec.ports^(port).port')).toEqual(['spec.ports@1:8,1:13']);
    expect(reads('parent.spec.$string(x)')).toEqual(['spec@1:8']);
    expect(reads('parent.spec.(a.b)')).toEqual(['spec@1:8']);
    expect(reads('parent.**.x')).toEqual([]);
  });

  it('ignores `parent` read where the context is not the input', () => {
    expect(reads('children.*.(parent.spec.x)')).toEqual([]);
    expect(reads('children.x[parent = 1]')).toEqual([]);
    expect(reads('children.x{"a": parent.spec.x}')).toEqual([]);
    expect(reads('children.(  $.parent.spec.x )')).toEqual([]);
    expect(reads('($p := parent; $p.spec.x)')).toEqual([]);
    expect(reads('$p.parent.spec.x')).toEqual([]);
  });

  it('reads $$ wherever it stands', () => {
    expect(reads('children.x[$$.parent.spec.y = 1]')).toEqual(['spec.y@1:22,1:27']);
  });

  it('reads the field it is asked for', () => {
    expect(reads('object.spec.a & parent.spec.b', 'object')).toEqual(['spec.a@1:8,1:13']);
  });

  it('finds nothing in an expression that does not compile, or reads no name below the field', () => {
    expect(reads('parent.spec.(')).toEqual([]);
    expect(reads('parent')).toEqual([]);
  });
});
