/**
 * One kubeconfig file, read as kubectl reads it: YAML (JSON is YAML too) listing named clusters,
 * users and contexts, and the current context. Relative file paths in it (certificate authority,
 * client certificate and key, token file, an exec command with a directory in it) are resolved
 * against the file's own directory, as client-go does, so a kubeconfig kept next to its certificates
 * works from any working directory and means the same after being merged with others.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve, sep } from 'node:path';
import type * as Yaml from 'js-yaml';
import type { ExecConfig } from './exec-credential.ts';

/** A `clusters[]` entry: where the API server is and how to trust it. */
export interface KubeCluster {
  readonly name: string;
  readonly server: string;
  /** `certificate-authority`: a PEM file, read for every request. */
  readonly certificateAuthority?: string | undefined;
  /** `certificate-authority-data`, decoded; wins over the file. */
  readonly certificateAuthorityData?: Buffer | undefined;
  readonly insecureSkipTlsVerify: boolean;
  /** `tls-server-name`: the name the server certificate is checked against instead of the host. */
  readonly tlsServerName?: string | undefined;
  readonly proxyUrl?: string | undefined;
  /** `extensions[]` by name; an exec plugin with `provideClusterInfo` gets `client.authentication.k8s.io/exec`. */
  readonly extensions: ReadonlyMap<string, unknown>;
}

/** The `as*` fields: the identity the API server is asked to act as. */
export interface Impersonation {
  readonly user?: string | undefined;
  readonly uid?: string | undefined;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** A legacy `auth-provider` entry (oidc, gcp, azure). */
export interface AuthProviderConfig {
  readonly name: string;
  readonly config: Readonly<Record<string, string>>;
}

/** A `users[]` entry: the credentials. File fields are re-read per request; `-data` fields win over files. */
export interface KubeUser {
  readonly name: string;
  readonly clientCertificate?: string | undefined;
  readonly clientCertificateData?: Buffer | undefined;
  readonly clientKey?: string | undefined;
  readonly clientKeyData?: Buffer | undefined;
  readonly token?: string | undefined;
  readonly tokenFile?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly impersonate?: Impersonation | undefined;
  readonly exec?: ExecConfig | undefined;
  readonly authProvider?: AuthProviderConfig | undefined;
}

/** A `contexts[]` entry: a cluster, a user and a default namespace under one name. */
export interface KubeContext {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace?: string | undefined;
}

/** The named entries of one or more kubeconfig files, in file order. */
export interface KubeconfigEntries {
  readonly clusters: ReadonlyMap<string, KubeCluster>;
  readonly users: ReadonlyMap<string, KubeUser>;
  readonly contexts: ReadonlyMap<string, KubeContext>;
  /** `current-context`; `''` when unset. */
  readonly currentContext: string;
}

type Obj = Record<string, unknown>;

/** Reads the fields of one YAML mapping, naming the field in every complaint. */
class Fields {
  private readonly obj: Obj;
  private readonly where: string;

  constructor(value: unknown, where: string) {
    if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) throw new Error(`${where || 'the file'} must be a mapping`);
    this.obj = (value ?? {}) as Obj;
    this.where = where;
  }

  /** The path of `key` for messages: `users[0].user.token`. */
  private at(key: string): string {
    return this.where ? `${this.where}.${key}` : key;
  }

  string(key: string): string | undefined {
    const value = this.obj[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw new Error(`${this.at(key)} must be a string`);
    return value;
  }

  boolean(key: string): boolean {
    const value = this.obj[key];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') throw new Error(`${this.at(key)} must be true or false`);
    return value;
  }

  strings(key: string): string[] {
    const value = this.list(key);
    if (!value.every((item) => typeof item === 'string')) throw new Error(`${this.at(key)} must be a list of strings`);
    return value;
  }

  private list(key: string): unknown[] {
    const value = this.obj[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new Error(`${this.at(key)} must be a list`);
    return value;
  }

  fields(key: string): Fields {
    return new Fields(this.obj[key], this.at(key));
  }

  /** The mappings of a list, each named by its place for messages. */
  entries(key: string): Fields[] {
    return this.list(key).map((entry, i) => new Fields(entry, `${this.at(key)}[${i}]`));
  }

  keys(): string[] {
    return Object.keys(this.obj);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  /** A mapping of strings (an auth-provider's config); other values are kept as their text. */
  record(key: string): Record<string, string> {
    const inner = this.fields(key).obj;
    return Object.fromEntries(Object.entries(inner).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
  }

  raw(key: string): unknown {
    return this.obj[key];
  }
}

/** Resolves `path` against the kubeconfig's directory unless it is absolute or empty. */
const under = (base: string) => (path: string | undefined): string | undefined => (path ? resolve(base, path) : undefined);

const decoded = (base64: string | undefined): Buffer | undefined => (base64 ? Buffer.from(base64, 'base64') : undefined);

function clusterOf(name: string, cluster: Fields, base: string): KubeCluster {
  const extensions = new Map<string, unknown>();
  for (const entry of cluster.entries('extensions')) {
    const extensionName = entry.string('name');
    if (extensionName) extensions.set(extensionName, entry.raw('extension'));
  }
  return {
    name,
    server: cluster.string('server') ?? '',
    certificateAuthority: under(base)(cluster.string('certificate-authority')),
    certificateAuthorityData: decoded(cluster.string('certificate-authority-data')),
    insecureSkipTlsVerify: cluster.boolean('insecure-skip-tls-verify'),
    tlsServerName: cluster.string('tls-server-name'),
    proxyUrl: cluster.string('proxy-url'),
    extensions,
  };
}

function impersonationOf(user: Fields): Impersonation | undefined {
  const extraFields = user.fields('as-user-extra');
  const extra = Object.fromEntries(extraFields.keys().map((key) => [key, extraFields.strings(key)]));
  const impersonation = { user: user.string('as'), uid: user.string('as-uid'), groups: user.strings('as-groups'), extra };
  const none = !impersonation.user && !impersonation.uid && impersonation.groups.length === 0 && Object.keys(extra).length === 0;
  return none ? undefined : impersonation;
}

/** The exec command is a path to resolve only when it names a directory; a bare name is looked up in `PATH`. */
function execOf(exec: Fields, base: string): ExecConfig {
  const command = exec.string('command') ?? '';
  const env = exec.entries('env').map((variable) => ({ name: variable.string('name') ?? '', value: variable.string('value') ?? '' }));
  return {
    command: command.includes(sep) ? resolve(base, command) : command,
    args: exec.strings('args'),
    env,
    apiVersion: exec.string('apiVersion') ?? '',
    installHint: exec.string('installHint'),
    provideClusterInfo: exec.boolean('provideClusterInfo'),
  };
}

function userOf(name: string, user: Fields, base: string): KubeUser {
  const path = under(base);
  const provider = user.fields('auth-provider');
  return {
    name,
    clientCertificate: path(user.string('client-certificate')),
    clientCertificateData: decoded(user.string('client-certificate-data')),
    clientKey: path(user.string('client-key')),
    clientKeyData: decoded(user.string('client-key-data')),
    token: user.string('token'),
    tokenFile: path(user.string('tokenFile')),
    username: user.string('username'),
    password: user.string('password'),
    impersonate: impersonationOf(user),
    exec: user.has('exec') ? execOf(user.fields('exec'), base) : undefined,
    authProvider: user.has('auth-provider') ? { name: provider.string('name') ?? '', config: provider.record('config') } : undefined,
  };
}

function contextOf(name: string, context: Fields): KubeContext {
  return { name, cluster: context.string('cluster') ?? '', user: context.string('user') ?? '', namespace: context.string('namespace') };
}

/** `list`'s entries by name; a name given twice in one file is an error (kubectl refuses it too). */
function named<T>(file: Fields, list: string, inner: string, build: (name: string, entry: Fields) => T): Map<string, T> {
  const entries = new Map<string, T>();
  for (const [i, item] of file.entries(list).entries()) {
    const name = item.string('name');
    if (!name) throw new Error(`${list}[${i}] has no name`);
    if (entries.has(name)) throw new Error(`${list}[${i}]: "${name}" is defined twice`);
    entries.set(name, build(name, item.fields(inner)));
  }
  return entries;
}

/**
 * The YAML parser, loaded when the first kubeconfig file is read: in a cluster loom reads none, and
 * the long-running host should not hold a parser it never uses.
 */
function yaml(): typeof Yaml {
  return createRequire(import.meta.url)('js-yaml') as typeof Yaml;
}

/** Parses kubeconfig text; `base` is the directory relative paths in it are resolved against. */
export function parseKubeconfig(text: string, base: string): KubeconfigEntries {
  const file = new Fields(yaml().load(text), '');
  return {
    clusters: named(file, 'clusters', 'cluster', (name, cluster) => clusterOf(name, cluster, base)),
    users: named(file, 'users', 'user', (name, user) => userOf(name, user, base)),
    contexts: named(file, 'contexts', 'context', contextOf),
    currentContext: file.string('current-context') ?? '',
  };
}

/** Reads and parses a kubeconfig file; errors name the file. */
export function readKubeconfig(file: string): KubeconfigEntries {
  const text = readFileSync(file, 'utf8');
  try {
    return parseKubeconfig(text, dirname(resolve(file)));
  } catch (cause) {
    // A YAML error's message quotes the lines around the mistake, which may hold a token or a key:
    // only the reason and the position are passed on, and the cause is not kept.
    if (cause instanceof yaml().YAMLException) {
      const where = cause.mark ? ` at line ${cause.mark.line + 1}, column ${cause.mark.column + 1}` : '';
      // eslint-disable-next-line preserve-caught-error -- the cause's message quotes the file's lines.
      throw new Error(`kubeconfig ${file}: not valid YAML: ${cause.reason}${where}`);
    }
    throw new Error(`kubeconfig ${file}: ${(cause as Error).message}`, { cause });
  }
}
