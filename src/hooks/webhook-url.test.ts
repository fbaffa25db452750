import { describe, expect, it } from 'vitest';
import { HookError } from './hook-error.ts';
import { webhookUrl, type WebhookTarget } from './webhook-url.ts';

describe('webhookUrl', () => {
  it.each<[string, WebhookTarget, string]>([
    ['url alone', { url: 'https://hooks.example:8443/sync' }, 'https://hooks.example:8443/sync'],
    ['url wins over service and path', { url: 'http://a/x', service: { name: 's', namespace: 'n' }, path: '/y' }, 'http://a/x'],
    ['service with defaults', { service: { name: 'hooks', namespace: 'web' }, path: '/sync' }, 'http://hooks.web:80/sync'],
    ['service with port', { service: { name: 'hooks', namespace: 'web', port: 8080 }, path: '/sync' }, 'http://hooks.web:8080/sync'],
    // Metacontroller keeps port 80 with https; the user must set the port too.
    ['service with protocol only', { service: { name: 'hooks', namespace: 'web', protocol: 'https' }, path: '/s' }, 'https://hooks.web:80/s'],
    ['service with every field', { service: { name: 'h', namespace: 'ns', port: 443, protocol: 'https' }, path: '/a/b?x=1' }, 'https://h.ns:443/a/b?x=1'],
  ])('%s', (_name, target, expected) => {
    expect(webhookUrl(target)).toBe(expected);
  });

  it.each<[string, WebhookTarget, string]>([
    ['neither url nor service', {}, 'webhook needs either url, or service and path'],
    ['a path without a service', { path: '/sync' }, 'webhook needs either url, or service and path'],
    ['an empty url', { url: '' }, 'webhook url is empty'],
    ['a service without a path', { service: { name: 'hooks', namespace: 'web' } }, 'webhook service web/hooks needs a path'],
    ['a relative path', { service: { name: 'hooks', namespace: 'web' }, path: 'sync' }, 'path "sync" must start with "/"'],
    ['a service without a namespace', { service: { name: 'hooks', namespace: '' }, path: '/s' }, 'needs both name and namespace'],
    ['port 0', { service: { name: 'hooks', namespace: 'web', port: 0 }, path: '/s' }, 'port 0 is not a TCP port'],
    ['port 70000', { service: { name: 'hooks', namespace: 'web', port: 70_000 }, path: '/s' }, 'port 70000 is not a TCP port'],
  ])('rejects %s', (_name, target, message) => {
    expect(() => webhookUrl(target)).toThrow(HookError);
    expect(() => webhookUrl(target)).toThrow(message);
  });
});
