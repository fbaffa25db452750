import { describe, expect, it } from 'vitest';
import { literalStatusFields } from './literal-status.ts';

function fields(expression: string): string[] {
  return literalStatusFields(expression).map((field) => `${field.names.join('.')}@${field.line}:${field.column}`);
}

describe('literalStatusFields', () => {
  it('lists every literal key of the status the answer builds, through arrays', () => {
    const expression = '{\n  "children": [],\n  "status": { "redy": true, "conditions": [{ "type": "Ready" }] }\n}';
    expect(fields(expression)).toEqual(['redy@3:15', 'conditions@3:29', 'conditions.type@3:46']);
  });

  it('finds the answer at the end of a block and in both branches of a condition', () => {
    expect(fields('( $x := 1; $x = 1 ? { "status": { "a": 1 } } : { "status": { "b": { "c": 2 } } } )')).toEqual(['a@1:35', 'b@1:62', 'b.c@1:69']);
  });

  it('skips computed keys and a status that is not a literal object', () => {
    expect(fields('{ "status": { $k: 1, "a": 1 } }')).toEqual(['a@1:22']);
    expect(fields('{ "status": $merge([{ "a": 1 }]) }')).toEqual([]);
  });

  it('skips status objects that are not the answer’s', () => {
    expect(fields('{ "children": [{ "status": { "x": 1 } }] }')).toEqual([]);
    expect(fields('$merge([{ "status": { "x": 1 } }])')).toEqual([]);
  });

  it('finds nothing in an expression that does not compile', () => {
    expect(fields('{ "status": ')).toEqual([]);
  });
});
