import { describe, expect, it } from 'vitest';
import { hookUrlLabel } from './hook-url-label.ts';

describe('hookUrlLabel', () => {
  it.each([
    ['https://user:pass@hook.example.com/sync', 'https://hook.example.com/sync'],
    ['https://token@hook.example.com/sync', 'https://hook.example.com/sync'],
    ['https://user:pass@hook.example.com', 'https://hook.example.com/'],
    ['http://hook.default:8080/sync?token=abc', 'http://hook.default:8080/sync'],
    ['http://hook.default/sync?', 'http://hook.default/sync'],
    ['http://hook.default/sync#frag', 'http://hook.default/sync'],
    ['https://u:p@[::1]:8443/a/b?x=1#y', 'https://[::1]:8443/a/b'],
    // Does not parse (a raw `?` in the password makes the port invalid): cut as text, userinfo first.
    ['http://u:p?ss@hook:80/sync?token=abc', 'http://hook:80/sync'],
    ['not a url?token=abc', 'not a url'],
  ])('%s → %s', (url, label) => {
    expect(hookUrlLabel(url)).toBe(label);
  });

  it.each([
    'http://hook/sync',
    'http://hook.default:80/sync',
    'https://hook.example.com',
    'HTTP://Hook.Example.com/Sync',
    'jsonata:inline',
    'jsonata:configmap/default/hooks/sync.jsonata',
  ])('keeps %s byte for byte', (url) => {
    expect(hookUrlLabel(url)).toBe(url);
  });
});
