/**
 * Turns a webhook's TLS and auth settings (docs/hook-protocol.md,
 * "Webhook TLS, authentication and ETag") into what a request needs: the PEM material of a custom TLS
 * agent and the `Authorization` header value. Secrets and ConfigMaps are read through a
 * {@link CredentialReader} on every call — loom's controllers back it with the shared informer caches — so a
 * rotated Secret is used by the next call without touching the controller object (Metacontroller reads
 * them once, when the controller starts). A missing object or key fails that call with a `HookError`
 * naming namespace, name, key and the setting that refers to it; values are never quoted.
 */
import type { EndpointConfig, KeyReference, ObjectReference, WebhookAuth } from '../api/controller-spec.ts';
import { effectiveWebhookAuth } from '../api/endpoint-match.ts';
import { HookError } from './hook-error.ts';

/** The kinds of object credentials live in. */
export type CredentialKind = 'Secret' | 'ConfigMap';

/** Reads the objects credentials live in. */
export interface CredentialReader {
  /**
   * The data of the `kind` object at `ref`, each value as bytes (a Secret's `data` decoded from base64;
   * a ConfigMap's `data` as UTF-8 and its `binaryData` decoded), or `undefined` when it does not exist.
   * May wait for a cache to fill; rejects with the signal's reason when `signal` aborts first.
   */
  read(kind: CredentialKind, ref: ObjectReference, signal: AbortSignal): Promise<ReadonlyMap<string, Buffer> | undefined>;
}

/** PEM material for a custom TLS agent, each part with the place it came from (for error messages). */
export interface TlsMaterial {
  ca?: { pem: Buffer; source: string };
  clientCert?: { cert: Buffer; key: Buffer; source: string };
}

/** What one call uses. */
export interface ResolvedCredentials {
  /** Absent: the default agent (system roots, no client certificate). */
  tls?: TlsMaterial;
  /** The `Authorization` header value; absent: no header. */
  authorization?: string;
}

/** Where the settings are written and whether the hook URL is https (TLS settings apply only then). */
export interface CredentialContext {
  /** Field path of the settings, e.g. `spec.hooks.sync.webhook` or `spec.endpointConfigs[0]`. */
  where: string;
  https: boolean;
}

/** One object a webhook's settings make every call read, and the setting that names it. */
export interface CredentialRef {
  kind: CredentialKind;
  namespace: string;
  name: string;
  /** Field path of the reference, e.g. `spec.hooks.sync.webhook.authorization.secretRef`. */
  setting: string;
}

/** The objects `auth` (written at `where`) makes a call read; TLS settings count only for an https URL. */
export function credentialRefsOf(auth: WebhookAuth, https: boolean, where: string): CredentialRef[] {
  const refs: CredentialRef[] = [];
  const add = (kind: CredentialKind, ref: ObjectReference, setting: string) => refs.push({ kind, namespace: ref.namespace, name: ref.name, setting: `${where}.${setting}` });
  if (auth.authorization) add('Secret', auth.authorization.secretRef, 'authorization.secretRef');
  if (auth.basicAuth) add('Secret', auth.basicAuth.secretRef, 'basicAuth.secretRef');
  if (!https) return refs;
  if (auth.caBundle?.secretRef) add('Secret', auth.caBundle.secretRef, 'caBundle.secretRef');
  if (auth.caBundle?.configMapRef) add('ConfigMap', auth.caBundle.configMapRef, 'caBundle.configMapRef');
  if (auth.clientTLS) add('Secret', auth.clientTLS.secretRef, 'clientTLS.secretRef');
  return refs;
}

/** The kinds of object `auth` makes a call read; TLS settings count only for an https URL. */
export function credentialKindsOf(auth: WebhookAuth, https: boolean): Set<CredentialKind> {
  return new Set(credentialRefsOf(auth, https, '').map((ref) => ref.kind));
}

/** The TLS and auth settings in effect for one webhook, where they were written, and what they read. */
export interface WebhookAuthPlan {
  auth: WebhookAuth;
  /** `spec.hooks.<hook>.webhook` or `spec.endpointConfigs[i]`, for messages. */
  where: string;
  /** The Secrets and ConfigMaps every call reads. */
  refs: CredentialRef[];
  /** Their kinds. */
  kinds: Set<CredentialKind>;
}

/**
 * Resolves a webhook's settings the way loom and `loom render` both must: its own when it sets any,
 * else the first matching `endpointConfigs` entry; TLS settings count only for an https URL.
 */
export function webhookAuthPlan(hook: string, webhook: WebhookAuth & { url: string }, endpointConfigs: readonly EndpointConfig[]): WebhookAuthPlan {
  const { auth, endpointConfigIndex } = effectiveWebhookAuth(webhook, endpointConfigs);
  const where = endpointConfigIndex === undefined ? `spec.hooks.${hook}.webhook` : `spec.endpointConfigs[${endpointConfigIndex}]`;
  const https = URL.canParse(webhook.url) && new URL(webhook.url).protocol === 'https:';
  const refs = credentialRefsOf(auth, https, where);
  return { auth, where, refs, kinds: new Set(refs.map((ref) => ref.kind)) };
}

/** Header values may not carry control characters (Node refuses them, and they would split the header). */
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/;

function headerText(value: Buffer, source: string): string {
  const text = value.toString('latin1').trim();
  if (!HEADER_SAFE.test(text)) throw new HookError(`${source} cannot be sent in an HTTP header: it contains control characters`);
  return text;
}

/**
 * `<type> <secret>`, the secret trimmed as Metacontroller trims it. `source` names the Secret key, for
 * the errors: an empty value, or one with characters a header cannot carry.
 */
export function authorizationHeader(type: string, secret: Buffer, source: string): string {
  const text = headerText(secret, source);
  if (text === '') throw new HookError(`${source} is empty`);
  return `${type} ${text}`;
}

/**
 * `Basic base64(user:pass)`, both trimmed as Metacontroller trims them. A username containing `:` is
 * refused: the server would split it there (RFC 7617).
 */
export function basicAuthHeader(username: Buffer, password: Buffer, source: string): string {
  const user = username.toString('utf8').trim();
  if (user.includes(':')) throw new HookError(`${source}: the username contains ":", which Basic authentication cannot carry`);
  const pass = password.toString('utf8').trim();
  return `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
}

/** What a reference names, for messages: `Secret hooks/token key "token" (spec.…authorization.secretRef)`. */
function keyName(kind: CredentialKind, ref: ObjectReference, key: string, setting: string): string {
  return `${kind} ${ref.namespace}/${ref.name} key "${key}" (${setting})`;
}

interface ReadContext {
  reader: CredentialReader | undefined;
  signal: AbortSignal;
}

async function readKey(ctx: ReadContext, kind: CredentialKind, ref: ObjectReference & { key: string }, setting: string): Promise<Buffer> {
  if (!ctx.reader) throw new HookError(`${setting} refers to ${kind} ${ref.namespace}/${ref.name}, but no ${kind} reader was given`);
  const data = await ctx.reader.read(kind, ref, ctx.signal);
  if (!data) throw new HookError(`${kind} ${ref.namespace}/${ref.name} (${setting}) does not exist`);
  const value = data.get(ref.key);
  if (value === undefined) throw new HookError(`${kind} ${ref.namespace}/${ref.name} has no key "${ref.key}" (${setting})`);
  return value;
}

async function resolveCA(ctx: ReadContext, caBundle: NonNullable<WebhookAuth['caBundle']>, where: string): Promise<NonNullable<TlsMaterial['ca']>> {
  const setting = `${where}.caBundle`;
  if (caBundle.inline !== undefined) return { pem: Buffer.from(caBundle.inline, 'utf8'), source: `${setting}.inline` };
  const [kind, ref, field]: [CredentialKind, KeyReference, string] = caBundle.secretRef
    ? ['Secret', caBundle.secretRef, 'secretRef']
    : ['ConfigMap', caBundle.configMapRef!, 'configMapRef'];
  return { pem: await readKey(ctx, kind, ref, `${setting}.${field}`), source: keyName(kind, ref, ref.key, `${setting}.${field}`) };
}

async function resolveClientTLS(ctx: ReadContext, clientTLS: NonNullable<WebhookAuth['clientTLS']>, where: string): Promise<NonNullable<TlsMaterial['clientCert']>> {
  const setting = `${where}.clientTLS.secretRef`;
  const { secretRef: ref, certKey, privateKeyKey } = clientTLS;
  const cert = await readKey(ctx, 'Secret', { ...ref, key: certKey }, setting);
  const key = await readKey(ctx, 'Secret', { ...ref, key: privateKeyKey }, setting);
  return { cert, key, source: `Secret ${ref.namespace}/${ref.name} keys "${certKey}" and "${privateKeyKey}" (${setting})` };
}

async function resolveAuthorization(ctx: ReadContext, auth: WebhookAuth, where: string): Promise<string | undefined> {
  if (auth.authorization) {
    const { type, secretRef } = auth.authorization;
    const setting = `${where}.authorization.secretRef`;
    return authorizationHeader(type, await readKey(ctx, 'Secret', secretRef, setting), keyName('Secret', secretRef, secretRef.key, setting));
  }
  if (auth.basicAuth) {
    const { secretRef, usernameKey, passwordKey } = auth.basicAuth;
    const setting = `${where}.basicAuth.secretRef`;
    const username = await readKey(ctx, 'Secret', { ...secretRef, key: usernameKey }, setting);
    const password = await readKey(ctx, 'Secret', { ...secretRef, key: passwordKey }, setting);
    return basicAuthHeader(username, password, keyName('Secret', secretRef, usernameKey, setting));
  }
  return undefined;
}

/**
 * Reads everything `auth` refers to. Rejects with a `HookError` for a missing object or key, an empty
 * token, a value no header can carry and a Basic username with `:`; with the signal's reason on abort.
 * PEM material is returned as read: `webhook-tls.ts` parses it when it builds the agent.
 */
export async function resolveCredentials(
  auth: WebhookAuth, context: CredentialContext & ReadContext,
): Promise<ResolvedCredentials> {
  const { where, https } = context;
  const tls: TlsMaterial = {};
  if (https && auth.caBundle) tls.ca = await resolveCA(context, auth.caBundle, where);
  if (https && auth.clientTLS) tls.clientCert = await resolveClientTLS(context, auth.clientTLS, where);
  const authorization = await resolveAuthorization(context, auth, where);
  return {
    ...(tls.ca || tls.clientCert ? { tls } : {}),
    ...(authorization === undefined ? {} : { authorization }),
  };
}
