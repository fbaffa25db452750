import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookError } from './hook-error.ts';
import { testPkis, type TestPki } from './tls-pki.test-support.ts';
import type { TlsMaterial } from './webhook-credentials.ts';
import { checkTlsMaterial, createTlsAgents, tlsFingerprint } from './webhook-tls.ts';

let pki: TestPki;
let other: TestPki;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const made = await testPkis(2);
  [pki, other] = made.pkis as [TestPki, TestPki];
  cleanup = made.cleanup;
});
afterAll(() => cleanup());

const SOURCE = 'Secret hooks/tls key "ca.crt" (spec.hooks.sync.webhook.caBundle.secretRef)';
const ca = (pem: string): TlsMaterial => ({ ca: { pem: Buffer.from(pem), source: SOURCE } });
const client = (cert: string, key: string): TlsMaterial => ({ clientCert: { cert: Buffer.from(cert), key: Buffer.from(key), source: 'Secret hooks/client' } });

function thrown(material: TlsMaterial): HookError {
  try {
    checkTlsMaterial(material);
  } catch (error) {
    expect(error).toBeInstanceOf(HookError);
    return error as HookError;
  }
  throw new Error('expected checkTlsMaterial to throw');
}

describe('checkTlsMaterial', () => {
  it('accepts a CA, a bundle of two CAs and a matching client certificate and key', () => {
    expect(() => checkTlsMaterial(ca(pki.ca))).not.toThrow();
    expect(() => checkTlsMaterial(ca(`${pki.ca}\n${other.ca}`))).not.toThrow();
    expect(() => checkTlsMaterial({ ...ca(pki.ca), ...client(pki.clientCert, pki.clientKey) })).not.toThrow();
  });

  it.each<[string, () => TlsMaterial, string]>([
    ['text without a certificate', () => ca('hello'), `caBundle from ${SOURCE} holds no PEM certificate`],
    ['a key where the CA belongs', () => ca(pki.clientKey), `caBundle from ${SOURCE} holds no PEM certificate`],
    ['a corrupted certificate', () => ca(pki.ca.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA')), `caBundle from ${SOURCE}: certificate 1 of 1 does not parse`],
    ['a corrupted second certificate', () => ca(`${pki.ca}-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n`), 'certificate 2 of 2 does not parse'],
    ['a client certificate that is not PEM', () => client('cert', pki.clientKey), 'clientTLS certificate from Secret hooks/client holds no PEM certificate'],
    ['a private key that is not PEM', () => client(pki.clientCert, 'key'), 'clientTLS private key from Secret hooks/client does not parse'],
    ['a key of another certificate', () => client(pki.clientCert, other.clientKey), 'clientTLS from Secret hooks/client: the private key does not belong to the certificate'],
  ])('rejects %s, naming the source', (_name, material, message) => {
    expect(thrown(material()).message).toContain(message);
  });

  it('does not quote the private key in its error', () => {
    const broken = pki.clientKey.replace('PRIVATE KEY-----\n', 'PRIVATE KEY-----\n!!');
    const error = thrown(client(pki.clientCert, broken));
    expect(error.message).not.toContain(pki.clientKey.split('\n')[1]);
  });
});

describe('tlsFingerprint', () => {
  it('tells material apart and is stable', () => {
    const a = tlsFingerprint({ ...ca(pki.ca), ...client(pki.clientCert, pki.clientKey) });
    expect(tlsFingerprint({ ...ca(pki.ca), ...client(pki.clientCert, pki.clientKey) })).toBe(a);
    expect(tlsFingerprint(ca(pki.ca))).not.toBe(a);
    expect(tlsFingerprint(ca(other.ca))).not.toBe(tlsFingerprint(ca(pki.ca)));
    expect(tlsFingerprint({ clientCert: { cert: Buffer.from('ab'), key: Buffer.from('c'), source: '' } }))
      .not.toBe(tlsFingerprint({ clientCert: { cert: Buffer.from('a'), key: Buffer.from('bc'), source: '' } }));
  });
});

describe('createTlsAgents', () => {
  it('keeps the agent while the material is unchanged', () => {
    const agents = createTlsAgents();
    const first = agents.lease(ca(pki.ca));
    first.release();
    const second = agents.lease(ca(pki.ca));
    expect(second.agent).toBe(first.agent);
    expect(second.agent.options.minVersion).toBe('TLSv1.2');
    expect(second.agent.options.keepAlive).toBe(true);
    second.release();
    agents.close();
  });

  it('builds a new agent when the material changes, destroying the old one once its requests are over', () => {
    const agents = createTlsAgents();
    const old = agents.lease(ca(pki.ca));
    const destroyed: string[] = [];
    const destroy = old.agent.destroy.bind(old.agent);
    old.agent.destroy = () => {
      destroyed.push('old');
      destroy();
    };
    const next = agents.lease(ca(other.ca));
    expect(next.agent).not.toBe(old.agent);
    expect(destroyed).toEqual([]);
    old.release();
    old.release();
    expect(destroyed).toEqual(['old']);
    next.release();
    agents.close();
  });

  it('keeps failing for material that does not parse, and recovers when it changes', () => {
    const agents = createTlsAgents();
    expect(() => agents.lease(ca('broken'))).toThrow(HookError);
    expect(() => agents.lease(ca('broken'))).toThrow('holds no PEM certificate');
    const lease = agents.lease(ca(pki.ca));
    expect(lease.agent.options.ca).toEqual(Buffer.from(pki.ca));
    lease.release();
    agents.close();
  });

  it('refuses leases after close', () => {
    const agents = createTlsAgents();
    agents.close();
    expect(() => agents.lease(ca(pki.ca))).toThrow('closed');
  });
});
