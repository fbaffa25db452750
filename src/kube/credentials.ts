/**
 * What every request to the API server carries, from the current context's cluster and user: the
 * TLS settings (CA, server name, client certificate) and the credentials (bearer token, basic auth,
 * an exec plugin's credential, impersonation headers), applied as client-go applies them.
 *
 * Files named by the kubeconfig are read when a request needs them, not once at load, so a rewritten
 * CA or client certificate takes effect on the next request (the REST client then switches
 * connections). A token file is read again once its content is a minute old, client-go's period: the
 * kubelet rotates a bound service-account token well before it expires, so a minute-old copy is still
 * valid.
 */
import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { authProviderAuthorizer, type AuthProviderAuthorizer } from './auth-provider.ts';
import { execCredentialSource, type ExecClusterInfo, type ExecCredential, type ExecCredentialSource } from './exec-credential.ts';
import type { Impersonation, KubeCluster, KubeUser } from './kubeconfig-file.ts';

/** The credentials of one kubeconfig user, for each request. */
export interface Credentials {
  /** Sets the TLS options and the headers of one request. */
  apply(opts: RequestOptions): Promise<void>;
  /**
   * The API server answered 401 to the request `opts` were applied to. Drops the credential that can
   * be got afresh (an exec plugin's, an auth-provider's held id-token) and returns true when the
   * request is worth sending again with options applied anew; false when nothing would change (a
   * static token, a certificate file).
   */
  refused(opts: RequestOptions): boolean;
}

/** How long a token read from a file is used before the file is read again. */
export const TOKEN_FILE_PERIOD_MS = 60_000;

/**
 * PEM material from inline data (which wins, as in client-go) or a file. Read synchronously: a few
 * hundred bytes from a local file cost less than an asynchronous read's thread-pool round trips.
 */
function pem(data: Buffer | undefined, file: string | undefined): Buffer | undefined {
  return data ?? (file ? readFileSync(file) : undefined);
}

/**
 * The token in `path`, read again once the copy is {@link TOKEN_FILE_PERIOD_MS} old. When a re-read
 * fails the last token read is kept; with none, the kubeconfig's own `token` (client-go's fallback).
 */
function fileToken(path: string, fallback: string | undefined): () => string {
  let cached: { token: string; readAt: number } | undefined;
  return () => {
    if (cached && Date.now() - cached.readAt < TOKEN_FILE_PERIOD_MS) return cached.token;
    try {
      const token = readFileSync(path, 'utf8').trim();
      if (!token) throw new Error('the file is empty');
      cached = { token, readAt: Date.now() };
    } catch (cause) {
      if (cached) return cached.token;
      if (fallback) return fallback;
      throw new Error(`tokenFile ${path}: ${(cause as Error).message}`, { cause });
    }
    return cached.token;
  };
}

/** The `Authorization` value the kubeconfig itself gives (token, token file, or basic auth), if any. */
function staticAuthorization(user: KubeUser): () => string | undefined {
  const { token, tokenFile, username, password } = user;
  if (tokenFile) {
    const read = fileToken(tokenFile, token);
    return () => `Bearer ${read()}`;
  }
  if (token) return () => `Bearer ${token}`;
  if (username === undefined && password === undefined) return () => undefined;
  const basic = `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`;
  return () => basic;
}

/** The `Impersonate-*` headers: act as another user, uid, groups and extra attributes. */
function impersonationHeaders(impersonate: Impersonation | undefined): OutgoingHttpHeaders {
  if (!impersonate) return {};
  const headers: OutgoingHttpHeaders = {};
  if (impersonate.user) headers['Impersonate-User'] = impersonate.user;
  if (impersonate.uid) headers['Impersonate-Uid'] = impersonate.uid;
  if (impersonate.groups.length > 0) headers['Impersonate-Group'] = [...impersonate.groups];
  for (const [key, values] of Object.entries(impersonate.extra)) headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = [...values];
  return headers;
}

/** Combinations client-go refuses, refused here too before any request is made. */
function validate(user: KubeUser): void {
  const where = `user "${user.name}"`;
  if ((user.token || user.tokenFile) && (user.username || user.password)) throw new Error(`${where}: username/password and a bearer token may not both be set`);
  if (!(user.clientCertificate || user.clientCertificateData) !== !(user.clientKey || user.clientKeyData)) {
    throw new Error(`${where}: a client certificate needs its key (client-certificate and client-key go together)`);
  }
  if (user.exec && user.authProvider) throw new Error(`${where}: exec and auth-provider may not both be set`);
}

/** The cluster as an exec plugin with `provideClusterInfo` is told it. */
function clusterInfo(cluster: KubeCluster): ExecClusterInfo {
  return {
    server: cluster.server,
    'tls-server-name': cluster.tlsServerName,
    'insecure-skip-tls-verify': cluster.insecureSkipTlsVerify,
    'certificate-authority-data': pem(cluster.certificateAuthorityData, cluster.certificateAuthority)?.toString('base64'),
    'proxy-url': cluster.proxyUrl,
    config: cluster.extensions.get('client.authentication.k8s.io/exec'),
  };
}

function headersOf(opts: RequestOptions): OutgoingHttpHeaders {
  if (Array.isArray(opts.headers)) throw new Error('request headers given as a list cannot carry credentials');
  opts.headers ??= {};
  return opts.headers as OutgoingHttpHeaders;
}

/**
 * How the server is trusted: its CA (none: the system's), or not at all; and the name its certificate
 * must carry. Never both a CA and no verification: the kubeconfig loader refuses that combination.
 */
function applyServerTrust(opts: RequestOptions, cluster: KubeCluster): void {
  if (cluster.insecureSkipTlsVerify) opts.rejectUnauthorized = false;
  const ca = pem(cluster.certificateAuthorityData, cluster.certificateAuthority);
  if (ca) opts.ca = ca;
  if (cluster.tlsServerName) opts.servername = cluster.tlsServerName;
}

/** The kubeconfig's own client certificate, if it has one. */
function applyClientCertificate(opts: RequestOptions, user: KubeUser | undefined): void {
  if (!user) return;
  const cert = pem(user.clientCertificateData, user.clientCertificate);
  const key = pem(user.clientKeyData, user.clientKey);
  if (cert && key) Object.assign(opts, { cert, key });
}

/**
 * An exec plugin's credential, for what the kubeconfig does not set itself (client-go lets explicit
 * credentials win). Returns whether any of it was used.
 */
function applyExec(opts: RequestOptions, headers: OutgoingHttpHeaders, credential: ExecCredential): boolean {
  const token = credential.token !== undefined && headers.Authorization === undefined;
  if (token) headers.Authorization = `Bearer ${credential.token}`;
  const cert = credential.clientCertificateData !== undefined && opts.cert === undefined;
  if (cert) Object.assign(opts, { cert: credential.clientCertificateData, key: credential.clientKeyData });
  return token || cert;
}

/**
 * The credentials of `user` (none: TLS only) against `cluster`. Checks the user now; runs no plugin
 * and loads nothing until the first request.
 */
export function credentialsFor(cluster: KubeCluster, user: KubeUser | undefined, now: () => number = Date.now): Credentials {
  if (user) validate(user);
  const authorization = user ? staticAuthorization(user) : () => undefined;
  const impersonation = impersonationHeaders(user?.impersonate);
  const exec: ExecCredentialSource | undefined = user?.exec ? execCredentialSource(user.exec, () => clusterInfo(cluster)) : undefined;
  const provider: AuthProviderAuthorizer | undefined = user?.authProvider ? authProviderAuthorizer(cluster.server, user.name, user.authProvider, now) : undefined;
  // Which exec credential each request carries, to drop exactly that one when it is refused; weak,
  // so the options of requests long done take nothing with them.
  const execUsed = new WeakMap<RequestOptions, ExecCredential>();
  // Likewise the header an auth-provider gave each request.
  const providerUsed = new WeakMap<RequestOptions, unknown>();
  return {
    async apply(opts) {
      applyServerTrust(opts, cluster);
      applyClientCertificate(opts, user);
      const headers = headersOf(opts);
      const value = authorization();
      if (value) headers.Authorization = value;
      Object.assign(headers, impersonation);
      const credential = exec ? await exec() : undefined;
      if (credential && applyExec(opts, headers, credential)) execUsed.set(opts, credential);
      if (provider && headers.Authorization === undefined) {
        await provider.authorize(headers);
        if (headers.Authorization !== undefined) providerUsed.set(opts, headers.Authorization);
      }
    },
    refused(opts) {
      const credential = execUsed.get(opts);
      if (exec && credential) {
        exec.refused(credential);
        return true;
      }
      if (!provider || !providerUsed.has(opts)) return false;
      provider.refused(providerUsed.get(opts));
      return true;
    },
  };
}
