import { describe, expect, it } from 'vitest';
import { errorChain } from './error-chain.ts';

describe('errorChain', () => {
  it('lists an error and its causes, outermost first', () => {
    expect(errorChain(new Error('sync failed', { cause: new Error('HTTP 500') }))).toEqual(['sync failed', 'HTTP 500']);
  });

  it('says a cause once when the message before already ends with it', () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:8080');
    expect(errorChain(new Error('sync hook: connect ECONNREFUSED 127.0.0.1:8080', { cause: refused }))).toEqual(['sync hook: connect ECONNREFUSED 127.0.0.1:8080']);
  });

  it('takes the message of a plain object a library threw, not a dump of it with its stack', () => {
    const thrown = { code: 'S0201', position: 3, message: 'Syntax error: "]"', stack: 'Error\n    at node_modules/jsonata/jsonata.js:1' };
    expect(errorChain(new Error('sync hook: JSONata syntax error at line 1, column 3', { cause: thrown }))).toEqual([
      'sync hook: JSONata syntax error at line 1, column 3', 'Syntax error: "]"',
    ]);
  });

  it('shows a value that is neither, and stops at a cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(errorChain(a)).toEqual(['a', 'b']);
    expect(errorChain(new Error('x', { cause: 42 }))).toEqual(['x', '42']);
  });
});
