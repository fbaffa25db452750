/**
 * Health probes for the control-plane processes: one HTTP(S) GET with a deadline. Plain `node:https`
 * on purpose: only `src/kube` may use the Kubernetes client, and a health check needs none of it.
 */
import type * as Http from 'node:http';
import { createRequire } from 'node:module';
import { request as httpsRequest } from 'node:https';

// Required, not imported: importing `node:http` as an ES module reads its lazy WebSocket getters, which
// load Node's bundled undici (~14 MiB resident) that loom never uses.
const { request: httpRequest } = createRequire(import.meta.url)('node:http') as typeof Http;

/** TLS material for an HTTPS probe; PEM contents, not paths. */
export interface ProbeTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** Only for a local server with a self-signed certificate we did not issue (the controller-manager). */
  insecure?: boolean;
}

/** Status and body of one probe. */
export interface ProbeResult {
  status: number;
  body: string;
}

const PROBE_TIMEOUT_MS = 2_000;

/** GETs `url`; rejects on connection errors and after a short timeout. */
export function probe(url: string, tls: ProbeTls = {}): Promise<ProbeResult> {
  const isHttps = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const options = { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) };
    const req = isHttps
      ? httpsRequest(url, { ...options, ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecure })
      : httpRequest(url, options);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
