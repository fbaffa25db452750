/**
 * Loads a kubeconfig the way controller-runtime's users expect: an explicit file (`--kubeconfig`),
 * else `$KUBECONFIG`, else the in-cluster service account (in a Pod), else `~/.kube/config`. The CLI
 * reads the environment and passes what it found ({@link KubeEnvironment}); this module never looks at
 * `process.env` itself. Without an environment, client-node's own chain runs (it reads `process.env`:
 * `$KUBECONFIG`, `~/.kube/config`, then the service account at its standard path).
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

/** Where the kubelet mounts a Pod's service-account `token`, `ca.crt` and `namespace`. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The environment variables that choose the kubeconfig, as the CLI read them. */
export interface KubeEnvironment {
  /** `$KUBECONFIG`: kubeconfig files separated by the platform's path delimiter. */
  kubeconfig?: string | undefined;
  /** `$KUBERNETES_SERVICE_HOST`: set by the kubelet in every container; means "in a cluster". */
  serviceHost?: string | undefined;
  /** `$KUBERNETES_SERVICE_PORT`. */
  servicePort?: string | undefined;
}

/** Where the kubeconfig comes from. */
export interface KubeConfigSource {
  /** `--kubeconfig`; when absent, the default chain (see the module comment). */
  path?: string | undefined;
  /** `--context`; when absent, the file's current context. */
  context?: string | undefined;
  /** The environment as the CLI read it; absent: client-node reads `process.env` itself. */
  environment?: KubeEnvironment | undefined;
  /** The in-cluster service-account directory; default {@link SERVICE_ACCOUNT_DIR}. */
  serviceAccountDir?: string | undefined;
}

/** Loads the configuration; throws with a clear message when the context does not exist. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const kc = new KubeConfig();
  if (source.path) kc.loadFromFile(source.path);
  else loadDefault(kc, source.environment ?? {}, source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  if (source.context) {
    if (!kc.getContextObject(source.context)) {
      throw new Error(`kubeconfig has no context "${source.context}" (have: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    }
    kc.setCurrentContext(source.context);
  }
  return kc;
}

function loadDefault(kc: KubeConfig, environment: KubeEnvironment, serviceAccountDir: string): void {
  if (environment.kubeconfig) loadFiles(kc, environment.kubeconfig.split(delimiter).filter((file) => file !== ''));
  else if (environment.serviceHost) loadInCluster(kc, environment, serviceAccountDir);
  // ~/.kube/config (client-node finds the home directory), or its own fallbacks.
  else kc.loadFromDefault();
}

/** `$KUBECONFIG`'s files merged as kubectl merges them: the first current context set wins. */
function loadFiles(kc: KubeConfig, files: readonly string[]): void {
  for (const [i, file] of files.entries()) {
    if (i === 0) {
      kc.loadFromFile(file);
      continue;
    }
    const more = new KubeConfig();
    more.loadFromFile(file);
    kc.mergeConfig(more, Boolean(kc.getCurrentContext()));
  }
}

/**
 * The Pod's own identity: the API server at `KUBERNETES_SERVICE_HOST:PORT` over TLS verified with
 * the mounted `ca.crt`, the mounted `token` as bearer. The token is named by its file, not read here:
 * client-node's `tokenFile` authenticator reads it on first use and again once it is 60 s old, so a
 * rotated (bound, expiring) token is picked up while the old one is still valid — the kubelet rotates
 * at 80% of a token's lifetime, client-go re-reads on the same 60 s period.
 */
function loadInCluster(kc: KubeConfig, environment: KubeEnvironment, dir: string): void {
  const { serviceHost = '', servicePort } = environment;
  if (!servicePort) throw new Error('KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not; pass --kubeconfig outside a cluster');
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) {
    throw new Error(`in a cluster (KUBERNETES_SERVICE_HOST is set) but there is no service-account token at ${tokenFile}; mount one (automountServiceAccountToken) or pass --kubeconfig`);
  }
  const namespaceFile = join(dir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : '';
  const host = isIPv6(serviceHost) ? `[${serviceHost}]` : serviceHost;
  kc.loadFromOptions({
    clusters: [{ name: 'in-cluster', server: `https://${host}:${servicePort}`, caFile: join(dir, 'ca.crt'), skipTLSVerify: false }],
    users: [{ name: 'service-account', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'service-account', ...(namespace ? { namespace } : {}) }],
    currentContext: 'in-cluster',
  });
}
