/**
 * Loads a kubeconfig the way controller-runtime's users expect: an explicit file (`--kubeconfig`),
 * else `$KUBECONFIG`'s files merged as kubectl merges them, else the in-cluster service account (in a
 * Pod), else `~/.kube/config`. The CLI reads the environment and passes what it found
 * ({@link KubeEnvironment}); a caller that passes none gets the same chain over `process.env`.
 *
 * loom reads kubeconfigs itself instead of through `@kubernetes/client-node`, whose loading alone
 * (it pulls in the whole generated API and several HTTP stacks) costs a controller tens of MiB and
 * hundreds of milliseconds of start-up. Only a user with a legacy `auth-provider` still loads it, on
 * its first request (auth-provider.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { credentialsFor } from './credentials.ts';
import { readKubeconfig, type KubeCluster, type KubeconfigEntries, type KubeContext, type KubeUser } from './kubeconfig-file.ts';

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
  /** The environment as the CLI read it; absent: read from `process.env`. */
  environment?: KubeEnvironment | undefined;
  /** The in-cluster service-account directory; default {@link SERVICE_ACCOUNT_DIR}. */
  serviceAccountDir?: string | undefined;
}

/** A loaded kubeconfig with its context chosen: what it defines, and the credentials of that context. */
export interface KubeConfig {
  /** Every context, in the order the files define them. */
  getContexts(): readonly KubeContext[];
  /** The chosen context's name (`--context`, else `current-context`). */
  getCurrentContext(): string;
  getContextObject(name: string): KubeContext | null;
  /** The chosen context's cluster; `null` when the context or its cluster is not defined. */
  getCurrentCluster(): KubeCluster | null;
  getCurrentUser(): KubeUser | null;
  /** Sets the TLS options and credential headers of one request to the current cluster. */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
  /**
   * The API server answered 401 to a request `opts` were applied to: drops a credential that can be
   * got afresh (an exec plugin's); true when sending it again with options applied anew may succeed.
   */
  credentialsRefused(opts: RequestOptions): boolean;
}

/** Loads the configuration; throws with a clear message when the context does not exist. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const entries = source.path
    ? readKubeconfig(source.path)
    : loadDefault(source.environment ?? processEnvironment(), source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  if (source.context && !entries.contexts.has(source.context)) {
    throw new Error(`kubeconfig has no context "${source.context}" (have: ${[...entries.contexts.keys()].join(', ') || 'none'})`);
  }
  return kubeConfigOf(entries, source.context ?? entries.currentContext);
}

function processEnvironment(): KubeEnvironment {
  return { kubeconfig: process.env.KUBECONFIG, serviceHost: process.env.KUBERNETES_SERVICE_HOST, servicePort: process.env.KUBERNETES_SERVICE_PORT };
}

function loadDefault(environment: KubeEnvironment, serviceAccountDir: string): KubeconfigEntries {
  if (environment.kubeconfig) return loadFiles(environment.kubeconfig.split(delimiter).filter((file) => file !== ''));
  if (environment.serviceHost) return loadInCluster(environment, serviceAccountDir);
  const home = join(homedir(), '.kube', 'config');
  if (!existsSync(home)) throw new Error(`no kubeconfig: pass --kubeconfig, set KUBECONFIG, or create ${home}`);
  return readKubeconfig(home);
}

/**
 * `$KUBECONFIG`'s files merged as kubectl merges them: each cluster, user and context comes whole
 * from the first file that defines its name, and the first file that sets a current context sets it.
 * A file that does not exist is skipped (kubectl's rule: the list is often shared between machines).
 */
function loadFiles(files: readonly string[]): KubeconfigEntries {
  const read = files.flatMap((file) => {
    try {
      return [readKubeconfig(file)];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  });
  if (read.length === 0) throw new Error(`none of the files in KUBECONFIG exists (${files.join(delimiter) || 'it lists none'})`);
  const firstWins = <T>(pick: (entries: KubeconfigEntries) => ReadonlyMap<string, T>): Map<string, T> => {
    const merged = new Map<string, T>();
    for (const entries of read) for (const [name, value] of pick(entries)) if (!merged.has(name)) merged.set(name, value);
    return merged;
  };
  return {
    clusters: firstWins((entries) => entries.clusters),
    users: firstWins((entries) => entries.users),
    contexts: firstWins((entries) => entries.contexts),
    currentContext: read.find((entries) => entries.currentContext !== '')?.currentContext ?? '',
  };
}

/**
 * The Pod's own identity: the API server at `KUBERNETES_SERVICE_HOST:PORT` over TLS verified with
 * the mounted `ca.crt`, the mounted `token` as bearer. The token is named by its file, not read here:
 * it is read on first use and again once the copy is a minute old (credentials.ts), so a rotated
 * (bound, expiring) token is picked up while the old one is still valid.
 */
function loadInCluster(environment: KubeEnvironment, dir: string): KubeconfigEntries {
  const { serviceHost = '', servicePort } = environment;
  if (!servicePort) throw new Error('KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not; pass --kubeconfig outside a cluster');
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) {
    throw new Error(`in a cluster (KUBERNETES_SERVICE_HOST is set) but there is no service-account token at ${tokenFile}; mount one (automountServiceAccountToken) or pass --kubeconfig`);
  }
  const namespaceFile = join(dir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : '';
  const host = isIPv6(serviceHost) ? `[${serviceHost}]` : serviceHost;
  const cluster: KubeCluster = {
    name: 'in-cluster', server: `https://${host}:${servicePort}`, certificateAuthority: join(dir, 'ca.crt'), insecureSkipTlsVerify: false, extensions: new Map(),
  };
  const user: KubeUser = { name: 'service-account', tokenFile };
  const context: KubeContext = { name: 'in-cluster', cluster: cluster.name, user: user.name, namespace: namespace || undefined };
  return { clusters: new Map([[cluster.name, cluster]]), users: new Map([[user.name, user]]), contexts: new Map([[context.name, context]]), currentContext: context.name };
}

/**
 * As client-go refuses it: a cluster that names a CA and also says not to verify is a mistake, and
 * following either half silently (loom used to drop the CA) hides it.
 */
function refuseInsecureWithCa(cluster: KubeCluster): void {
  if (cluster.insecureSkipTlsVerify && (cluster.certificateAuthority || cluster.certificateAuthorityData)) {
    throw new Error(`cluster "${cluster.name}": specifying a root certificates file with the insecure flag is not allowed (remove certificate-authority or insecure-skip-tls-verify)`);
  }
}

function kubeConfigOf(entries: KubeconfigEntries, currentContext: string): KubeConfig {
  const context = entries.contexts.get(currentContext);
  const cluster = context ? entries.clusters.get(context.cluster) : undefined;
  const user = context ? entries.users.get(context.user) : undefined;
  // As client-go: a context naming a user nobody defined is a mistake, not a user without credentials.
  if (context?.user && !user) throw new Error(`user "${context.user}" was not found for context "${currentContext}"`);
  if (cluster) refuseInsecureWithCa(cluster);
  // Built now so a user loom cannot authenticate as fails at start-up; it runs no plugin and loads
  // nothing before the first request.
  const credentials = cluster ? credentialsFor(cluster, user) : undefined;
  return {
    getContexts: () => [...entries.contexts.values()],
    getCurrentContext: () => currentContext,
    getContextObject: (name) => entries.contexts.get(name) ?? null,
    getCurrentCluster: () => cluster ?? null,
    getCurrentUser: () => user ?? null,
    applyToHTTPSOptions: async (opts) => {
      if (!credentials) throw new Error(`the kubeconfig's context "${currentContext}" names no cluster it defines`);
      await credentials.apply(opts);
    },
    credentialsRefused: (opts) => credentials?.refused(opts) ?? false,
  };
}
