import { describe, expect, it } from 'vitest';
import { parseListenAddress } from './listen-address.ts';

describe('parseListenAddress', () => {
  it.each([
    [':9999', { host: '0.0.0.0', port: 9999 }],
    ['127.0.0.1:8081', { host: '127.0.0.1', port: 8081 }],
    ['[::1]:0', { host: '::1', port: 0 }],
    ['0', undefined],
  ])('%s', (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each(['9999', 'host', ':99999', 'a:b'])('rejects %s', (value) => {
    expect(() => parseListenAddress(value)).toThrow(`"${value}"`);
  });
});
