/**
 * Reads one Hook object (`webhook` or loom's `jsonata`) and `endpointConfigs[]` from untrusted JSON,
 * applying Metacontroller's code-level defaults and reporting every problem with its field path.
 * Values of fields that had problems are placeholders; the caller discards the result then.
 */
import {
  DEFAULTS,
  HOOK_VERSIONS,
  RESPONSE_UNMARSHAL_MODES,
  defaultUnmarshalMode,
  type Authorization,
  type BasicAuth,
  type CABundle,
  type ClientTLS,
  type ETagConfig,
  type EndpointConfig,
  type Hook,
  type HookVersion,
  type JsonataHook,
  type KeyReference,
  type ObjectReference,
  type ServiceReference,
  type Webhook,
  type WebhookAuth,
} from './controller-spec.ts';
import { InvalidDurationError, parseDuration } from './duration.ts';
import { omitUndefined, type FieldReader } from './field-reader.ts';

const AUTH_FIELDS = ['caBundle', 'clientTLS', 'authorization', 'basicAuth'] as const;
const WEBHOOK_FIELDS = ['url', 'timeout', 'path', 'service', 'etag', 'responseUnMarshallMode', ...AUTH_FIELDS];

function readObjectRef(r: FieldReader): ObjectReference {
  r.object(true);
  return {
    name: r.field('name').string({ required: true, nonEmpty: true }) ?? '',
    namespace: r.field('namespace').string({ required: true, nonEmpty: true }) ?? '',
  };
}

/** A Secret/ConfigMap key reference; `key` falls back to `defaultKey`, or is required without one. */
function readKeyRef(r: FieldReader, defaultKey?: string): KeyReference {
  r.warnUnknownFields(['name', 'namespace', 'key']);
  const ref = readObjectRef(r);
  const key = r.field('key').string({ required: defaultKey === undefined, nonEmpty: true });
  return { ...ref, key: key ?? defaultKey ?? '' };
}

function readCABundle(r: FieldReader): CABundle | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['inline', 'secretRef', 'configMapRef']);
  const sources = ['inline', 'secretRef', 'configMapRef'].filter((key) => r.field(key).present);
  if (sources.length !== 1) r.problem(`set exactly one of inline, secretRef and configMapRef (found ${sources.length})`);
  const keyRef = (key: string): KeyReference | undefined =>
    r.field(key).present ? readKeyRef(r.field(key), DEFAULTS.caBundleKey) : undefined;
  return omitUndefined({
    inline: r.field('inline').string({ nonEmpty: true }),
    secretRef: keyRef('secretRef'),
    configMapRef: keyRef('configMapRef'),
  });
}

function readClientTLS(r: FieldReader): ClientTLS | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['secretRef', 'certKey', 'privateKeyKey']);
  return {
    secretRef: readObjectRef(r.field('secretRef')),
    certKey: r.field('certKey').string({ nonEmpty: true }) ?? DEFAULTS.certKey,
    privateKeyKey: r.field('privateKeyKey').string({ nonEmpty: true }) ?? DEFAULTS.privateKeyKey,
  };
}

function readAuthorization(r: FieldReader): Authorization | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['type', 'secretRef']);
  const type = r.field('type').string({ nonEmpty: true }) ?? DEFAULTS.authorizationType;
  // Metacontroller refuses Basic here: the secret would be sent without the base64 encoding Basic needs.
  if (type.toLowerCase() === 'basic') r.field('type').problem('use basicAuth for Basic authentication');
  return { type, secretRef: readKeyRef(r.field('secretRef')) };
}

function readBasicAuth(r: FieldReader): BasicAuth | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['secretRef', 'usernameKey', 'passwordKey']);
  return {
    secretRef: readObjectRef(r.field('secretRef')),
    usernameKey: r.field('usernameKey').string({ nonEmpty: true }) ?? DEFAULTS.usernameKey,
    passwordKey: r.field('passwordKey').string({ nonEmpty: true }) ?? DEFAULTS.passwordKey,
  };
}

/** TLS/auth settings of a webhook or endpoint config; `authorization` and `basicAuth` exclude each other. */
function readWebhookAuth(r: FieldReader): WebhookAuth {
  if (r.field('authorization').present && r.field('basicAuth').present) {
    r.problem('set at most one of authorization and basicAuth');
  }
  return omitUndefined({
    caBundle: readCABundle(r.field('caBundle')),
    clientTLS: readClientTLS(r.field('clientTLS')),
    authorization: readAuthorization(r.field('authorization')),
    basicAuth: readBasicAuth(r.field('basicAuth')),
  });
}

function readService(r: FieldReader): ServiceReference | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['name', 'namespace', 'port', 'protocol']);
  return {
    ...readObjectRef(r),
    port: r.field('port').integer({ min: 1, max: 65_535 }) ?? DEFAULTS.servicePort,
    protocol: r.field('protocol').string({ nonEmpty: true }) ?? DEFAULTS.serviceProtocol,
  };
}

function readEtag(r: FieldReader): ETagConfig {
  r.object();
  r.warnUnknownFields(['enabled', 'cacheTimeoutSeconds', 'cacheCleanupSeconds']);
  return omitUndefined({
    enabled: r.field('enabled').boolean() ?? false,
    cacheTimeoutSeconds: r.field('cacheTimeoutSeconds').integer({ min: 0 }),
    cacheCleanupSeconds: r.field('cacheCleanupSeconds').integer({ min: 0 }),
  });
}

/** A Go duration string in milliseconds, or `undefined` when absent or unparsable (reported). */
function readDurationMs(r: FieldReader): number | undefined {
  const text = r.string();
  if (text === undefined) return undefined;
  try {
    return parseDuration(text);
  } catch (error) {
    if (!(error instanceof InvalidDurationError)) throw error;
    return r.problem(error.message);
  }
}

/** `<protocol>://<name>.<namespace>:<port><path>`, Metacontroller's service URL (no `.svc` suffix). */
function serviceUrl(service: ServiceReference | undefined, path: string | undefined): string | undefined {
  if (service === undefined || path === undefined) return undefined;
  return `${service.protocol}://${service.name}.${service.namespace}:${service.port}${path}`;
}

/** The URL a webhook posts to: `url` as written, else built from `service` + `path`. */
function resolveUrl(r: FieldReader, service: ServiceReference | undefined, path: string | undefined): string {
  const url = r.field('url').string({ nonEmpty: true });
  if (url !== undefined && (service !== undefined || path !== undefined)) r.field('url').warn('url is set; service and path are ignored');
  const resolved = url ?? serviceUrl(service, path);
  if (resolved === undefined) return reportMissingTarget(r);
  if (!URL.canParse(resolved)) r.field(url === undefined ? 'path' : 'url').problem(`not a valid absolute URL: ${JSON.stringify(resolved)}`);
  else checkScheme(r, url, service);
  return resolved;
}

/** Hooks are called over HTTP(S) only; the runner refuses anything else, but without saying which field. */
function checkScheme(r: FieldReader, url: string | undefined, service: ServiceReference | undefined): void {
  if (url !== undefined) {
    const { protocol } = new URL(url);
    if (protocol !== 'http:' && protocol !== 'https:') r.field('url').problem(`expected an http or https URL; got ${JSON.stringify(protocol)}`);
  } else if (service && !['http', 'https'].includes(service.protocol.toLowerCase())) {
    r.field('service').field('protocol').problem(`expected http or https; got ${JSON.stringify(service.protocol)}`);
  }
}

/** Says what is missing only when it is missing: fields that are there but bad were reported already. */
function reportMissingTarget(r: FieldReader): string {
  const given = (key: string): boolean => r.field(key).present;
  if (!given('url') && !(given('service') && given('path'))) r.problem('set url, or service and path');
  return '';
}

function readWebhook(r: FieldReader, version: HookVersion): Webhook {
  r.warnUnknownFields(WEBHOOK_FIELDS);
  const service = readService(r.field('service'));
  const path = r.field('path').string();
  let timeoutMs = readDurationMs(r.field('timeout')) ?? DEFAULTS.webhookTimeoutMs;
  if (timeoutMs <= 0) {
    // Metacontroller logs this and uses its default rather than refusing the controller.
    r.field('timeout').warn('not positive; using the default 10s');
    timeoutMs = DEFAULTS.webhookTimeoutMs;
  } else if (timeoutMs > DEFAULTS.webhookMaxTimeoutMs) {
    // Metacontroller accepts any duration; a timer this long would fire at once and fail every call.
    r.field('timeout').warn('longer than a timer can wait (about 24 days); using that instead');
    timeoutMs = DEFAULTS.webhookMaxTimeoutMs;
  }
  return omitUndefined({
    url: resolveUrl(r, service, path),
    service,
    path,
    timeoutMs,
    etag: readEtag(r.field('etag')),
    responseUnMarshallMode: r.field('responseUnMarshallMode').oneOf(RESPONSE_UNMARSHAL_MODES) ?? defaultUnmarshalMode(version),
    ...readWebhookAuth(r),
  });
}

function readJsonata(r: FieldReader): JsonataHook {
  r.warnUnknownFields(['expression', 'configMapRef', 'timeout']);
  const expressionReader = r.field('expression');
  const refReader = r.field('configMapRef');
  if (expressionReader.present === refReader.present) r.problem('set exactly one of expression and configMapRef');
  let timeoutMs = readDurationMs(r.field('timeout')) ?? DEFAULTS.jsonataTimeoutMs;
  if (timeoutMs <= 0) timeoutMs = r.field('timeout').problem('expected a positive duration') ?? DEFAULTS.jsonataTimeoutMs;
  if (timeoutMs > DEFAULTS.jsonataMaxTimeoutMs) timeoutMs = r.field('timeout').problem('at most 30s') ?? DEFAULTS.jsonataTimeoutMs;
  if (refReader.present) return { configMapRef: readKeyRef(refReader), timeoutMs };
  return { expression: expressionReader.string({ nonEmpty: true }) ?? '', timeoutMs };
}

/** The hook's single transport, or `undefined` after reporting both or neither. */
function readTransport(r: FieldReader, version: HookVersion): Pick<Hook, 'webhook'> | Pick<Hook, 'jsonata'> | undefined {
  const webhookReader = r.field('webhook');
  const jsonataReader = r.field('jsonata');
  const webhook = webhookReader.object() && readWebhook(webhookReader, version);
  const jsonata = jsonataReader.object() && readJsonata(jsonataReader);
  if (webhook && jsonata) return r.problem('set exactly one of webhook and jsonata, not both');
  if (webhook) return { webhook };
  if (jsonata) return { jsonata };
  // Present-but-wrong-type fields were already reported by object().
  if (!webhookReader.present && !jsonataReader.present) r.problem('set exactly one of webhook and jsonata');
  return undefined;
}

/** One Hook object, or `undefined` when absent or when it has neither or both of webhook and jsonata. */
export function readHook(r: FieldReader): Hook | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['version', 'webhook', 'jsonata']);
  const version = r.field('version').oneOf(HOOK_VERSIONS) ?? DEFAULTS.hookVersion;
  const transport = readTransport(r, version);
  return transport && { version, ...transport };
}

/** `spec.endpointConfigs[]`. */
export function readEndpointConfigs(r: FieldReader): EndpointConfig[] {
  return (r.items() ?? []).map((item) => {
    item.object(true);
    item.warnUnknownFields(['host', ...AUTH_FIELDS]);
    return { host: item.field('host').string({ required: true, nonEmpty: true }) ?? '', ...readWebhookAuth(item) };
  });
}
