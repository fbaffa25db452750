/**
 * The certificates a local control plane needs, made with the system's `openssl`: a CA, a serving
 * certificate for 127.0.0.1, an admin client certificate in group `system:masters`, and the key pair
 * that signs service-account tokens. EC P-256 keys: valid everywhere here and fast to generate.
 */
import { execFile } from 'node:child_process';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Paths of the PEM files written by {@link createPki}. */
export interface Pki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

const DAYS = '30';
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(args: readonly string[], step: string): Promise<void> {
  try {
    await run('openssl', args);
  } catch (cause) {
    throw new Error(`openssl failed to ${step}`, { cause });
  }
}

interface LeafRequest {
  dir: string;
  name: string;
  subject: string;
  extensions: string;
}

/** Makes a key and a certificate signed by the CA in `dir`; returns the certificate and key paths. */
async function signLeaf(req: LeafRequest): Promise<[cert: string, key: string]> {
  const [key, csr, cert, ext] = ['key', 'csr', 'crt', 'ext'].map((suffix) => join(req.dir, `${req.name}.${suffix}`));
  await writeFile(ext!, req.extensions);
  await openssl(['req', ...EC_KEY, '-keyout', key!, '-out', csr!, '-subj', req.subject], `make the ${req.name} key`);
  await openssl(
    ['x509', '-req', '-in', csr!, '-CA', join(req.dir, 'ca.crt'), '-CAkey', join(req.dir, 'ca.key'),
      '-CAcreateserial', '-days', DAYS, '-extfile', ext!, '-out', cert!],
    `sign the ${req.name} certificate`,
  );
  return [cert!, key!];
}

/** Writes a fresh PKI into `dir` (created if missing). */
export async function createPki(dir: string): Promise<Pki> {
  await mkdir(dir, { recursive: true });
  const caCert = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  await openssl(
    ['req', '-x509', ...EC_KEY, '-keyout', caKey, '-out', caCert, '-days', DAYS, '-subj', '/CN=loom-dev-ca',
      '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature'],
    'make the CA',
  );
  // Go and Node both ignore the CN for host checks: the IP SAN is what makes 127.0.0.1 valid.
  const [servingCert, servingKey] = await signLeaf({
    dir, name: 'apiserver', subject: '/CN=kube-apiserver',
    extensions: 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n' +
      'extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  });
  const [adminCert, adminKey] = await signLeaf({
    dir, name: 'admin', subject: '/O=system:masters/CN=loom-admin',
    extensions: 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPub = join(dir, 'sa.pub');
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', serviceAccountKey],
    'make the service-account signing key');
  await openssl(['pkey', '-in', serviceAccountKey, '-pubout', '-out', serviceAccountPub], 'extract the service-account public key');
  return { caCert, caKey, servingCert, servingKey, adminCert, adminKey, serviceAccountKey, serviceAccountPub };
}
