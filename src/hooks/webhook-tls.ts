/**
 * The TLS side of a webhook with a custom CA bundle or client certificate (docs/hook-protocol.md,
 * "Webhook TLS, authentication and ETag"): the PEM material is checked with errors that name where it
 * came from, and turned into a keep-alive `https.Agent` with TLS 1.2 at least. Agents are keyed by a
 * hash of their material, so an agent — and its open connections — lives until the material changes (a
 * rotated Secret), not per call; an agent that is replaced is destroyed once the requests still using it
 * have finished.
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { Agent } from 'node:https';
import { HookError } from './hook-error.ts';
import type { TlsMaterial } from './webhook-credentials.ts';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle, each parsed; throws a `HookError` naming `source` and the bad one. */
function parseCertificates(pem: Buffer, source: string, what: string): X509Certificate[] {
  const blocks = pem.toString('utf8').match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) throw new HookError(`${what} from ${source} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (cause) {
      throw new HookError(`${what} from ${source}: certificate ${i + 1} of ${blocks.length} does not parse`, { cause });
    }
  });
}

function parsePrivateKey(pem: Buffer, source: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (cause) {
    // The cause is OpenSSL's message, never the key itself.
    throw new HookError(`clientTLS private key from ${source} does not parse (an unencrypted PEM key is expected)`, { cause });
  }
}

/**
 * Checks that `material` parses: every certificate of the CA bundle, the client certificate chain, the
 * private key, and that the key belongs to the certificate. Throws a `HookError` naming the source.
 */
export function checkTlsMaterial(material: TlsMaterial): void {
  if (material.ca) parseCertificates(material.ca.pem, material.ca.source, 'caBundle');
  if (!material.clientCert) return;
  const { cert, key, source } = material.clientCert;
  const [leaf] = parseCertificates(cert, source, 'clientTLS certificate');
  const privateKey = parsePrivateKey(key, source);
  if (!leaf!.checkPrivateKey(privateKey)) throw new HookError(`clientTLS from ${source}: the private key does not belong to the certificate`);
}

/** A digest of the material that tells versions apart; holds no secret. */
export function tlsFingerprint(material: TlsMaterial): string {
  const hash = createHash('sha256');
  for (const part of [material.ca?.pem, material.clientCert?.cert, material.clientCert?.key]) {
    // Length-prefixed, so moving bytes from one part to the next changes the digest.
    hash.update(`${part?.length ?? -1}:`);
    if (part) hash.update(part);
  }
  return hash.digest('hex');
}

/** An agent in use by one request; `release` when the request is over. */
export interface AgentLease {
  readonly agent: Agent;
  release(): void;
}

/** The agents of one webhook runner. */
export interface TlsAgents {
  /**
   * The agent for `material`: the current one when the material is unchanged, else a new one (the
   * material is checked first; a `HookError` says what does not parse).
   */
  lease(material: TlsMaterial): AgentLease;
  /** Destroys the agents once their requests are over; later leases fail. */
  close(): void;
}

interface Slot {
  fingerprint: string;
  agent: Agent;
  users: number;
  retired: boolean;
}

function agentFor(material: TlsMaterial): Agent {
  return new Agent({
    keepAlive: true,
    minVersion: 'TLSv1.2',
    // A CA bundle replaces the system roots, as Go's RootCAs does in Metacontroller.
    ...(material.ca ? { ca: material.ca.pem } : {}),
    ...(material.clientCert ? { cert: material.clientCert.cert, key: material.clientCert.key } : {}),
  });
}

/** Creates the agent set of one runner. */
export function createTlsAgents(): TlsAgents {
  let current: Slot | undefined;
  let failed: { fingerprint: string; error: unknown } | undefined;
  let closed = false;

  const retire = (slot: Slot): void => {
    slot.retired = true;
    if (slot.users === 0) slot.agent.destroy();
  };
  const slotFor = (material: TlsMaterial): Slot => {
    const fingerprint = tlsFingerprint(material);
    if (current?.fingerprint === fingerprint) return current;
    // Bad material fails every call until it changes; parse it once, not per call.
    if (failed?.fingerprint === fingerprint) throw failed.error;
    try {
      checkTlsMaterial(material);
    } catch (error) {
      failed = { fingerprint, error };
      throw error;
    }
    if (current) retire(current);
    current = { fingerprint, agent: agentFor(material), users: 0, retired: false };
    return current;
  };

  return {
    lease(material) {
      if (closed) throw new HookError('the webhook runner is closed');
      const slot = slotFor(material);
      slot.users += 1;
      let released = false;
      return {
        agent: slot.agent,
        release() {
          if (released) return;
          released = true;
          slot.users -= 1;
          if (slot.retired && slot.users === 0) slot.agent.destroy();
        },
      };
    },
    close() {
      closed = true;
      if (current) retire(current);
      current = undefined;
    },
  };
}
