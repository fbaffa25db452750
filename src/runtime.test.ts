import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  it('runs on the Node 24 the project pins, not the system Node', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });
});
