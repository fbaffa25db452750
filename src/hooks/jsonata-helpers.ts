/**
 * The functions loom binds into every JSONata hook expression, next to JSONata's own library. The set
 * is small on purpose: each one does something that is awkward or wrong in plain JSONata and common in
 * a controller. They are plain, synchronous and pure (no clock, no I/O), so they add nothing an
 * expression could use to reach outside its input, and they run inside the expression's time budget.
 *
 * Following JSONata's convention, a missing (`undefined`) first argument gives an `undefined` result;
 * any other wrong argument throws, which fails the evaluation with the helper's name in the message.
 *
 * | helper | result |
 * |---|---|
 * | `$hash(value)` | 16 hex characters identifying the content of `value` |
 * | `$base64encode(text)` / `$base64decode(b64)` | UTF-8 aware Base64 (replacing JSONata's Latin-1 ones) |
 * | `$matchLabels(labels, selector)` | whether a label map matches a Kubernetes `LabelSelector` |
 * | `$dnsName(part, …)` | a valid DNS-1123 label built from the parts |
 * | `$child(children, type, name)` | one observed object of an object map, or `undefined` |
 * | `$ready(object)` | whether kstatus judges the object `Current` |
 * | `$readiness(object)` | kstatus's `{status, message}` for the object |
 */
import { createHash } from 'node:crypto';
import { canonicalJson, isRecord } from '../api/json-value.ts';
import { matchesSelector } from '../api/label-selector.ts';
import type { KubeObject } from '../api/object.ts';
// The pure readiness rules, straight to their folder: an evaluator process loads this file.
import { readinessOf, type Readiness } from '../api/readiness/readiness.ts';

/** One helper: its name without the `$`, and its implementation. */
export interface JsonataHelper {
  name: string;
  implementation: (...args: unknown[]) => unknown;
}

/** The longest DNS-1123 label (a Service name, for instance). */
const DNS_LABEL_MAX = 63;
/** Hex characters of the hash that keeps a shortened name unique. */
const DNS_SUFFIX_HEX = 8;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * `$hash(value)`: a stable content hash, for annotations that roll a Deployment when a ConfigMap's data
 * changes, or for names that must change with content. The first 16 hex characters (64 bits) of the
 * SHA-256 of `value` as canonical JSON (object keys sorted at every level), so key order never changes
 * it. Any JSON value may be hashed; `undefined` gives `undefined`.
 *
 * @example `$hash({"b": 1, "a": [true, "x"]}) = $hash({"a": [true, "x"], "b": 1})` → `true`
 * @example `$hash("hello")` → `"5aa762ae383fbb72"`
 */
export function hash(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return sha256Hex(canonicalJson(value)).slice(0, 16);
}

function requireString(helper: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`$${helper}: expected a string, got ${typeName(value)}`);
  return value;
}

/**
 * `$base64encode(text)`: the Base64 of `text`'s UTF-8 bytes, as a Secret's `data` needs. Replaces
 * JSONata's built-in, which encodes Latin-1 and so mangles any other character.
 *
 * @example `$base64encode("grüße")` → `"Z3LDvMOfZQ=="`
 */
export function base64encode(text: unknown): string | undefined {
  if (text === undefined) return undefined;
  return Buffer.from(requireString('base64encode', text), 'utf8').toString('base64');
}

/**
 * `$base64decode(b64)`: the UTF-8 text that standard Base64 `b64` encodes (padding optional). Throws
 * for anything that is not Base64 or does not decode to UTF-8, instead of returning garbage.
 *
 * @example `$base64decode("Z3LDvMOfZQ==")` → `"grüße"`
 */
export function base64decode(b64: unknown): string | undefined {
  if (b64 === undefined) return undefined;
  const text = requireString('base64decode', b64);
  if (!BASE64.test(text)) throw new Error('$base64decode: the argument is not Base64');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64'));
  } catch (cause) {
    throw new Error('$base64decode: the decoded bytes are not UTF-8 text', { cause });
  }
}

/**
 * `$matchLabels(labels, selector)`: whether the label map `labels` satisfies the Kubernetes
 * `LabelSelector` `selector` (`matchLabels` and `matchExpressions`). As in Kubernetes, an empty
 * selector `{}` matches everything, and a missing selector matches nothing; missing labels count as
 * none. An invalid selector (unknown operator, `In` without values) throws.
 *
 * @example `$matchLabels({"app": "web"}, {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]})` → `true`
 * @example `$filter($each(children."Pod.v1", function($p) {$p}), function($p) {$matchLabels($p.metadata.labels, parent.spec.selector)})`
 */
export function matchLabels(labels: unknown, selector: unknown): boolean {
  if (labels !== undefined && !isRecord(labels)) throw new Error(`$matchLabels: labels must be an object, got ${typeName(labels)}`);
  if (selector === undefined) return false;
  if (!isRecord(selector)) throw new Error(`$matchLabels: the selector must be an object, got ${typeName(selector)}`);
  return matchesSelector(selector, labels as Record<string, string> | undefined);
}

function namePart(part: unknown, index: number): string {
  if (typeof part === 'string') return part;
  if (typeof part === 'number' && Number.isFinite(part)) return String(part);
  throw new Error(`$dnsName: part ${index + 1} must be a string or a number, got ${part === undefined ? 'nothing' : typeName(part)}`);
}

/**
 * `$dnsName(part, …)`: a valid DNS-1123 label (what every object name, and a Service name in
 * particular, may be) from the parts joined with `-`: lower-cased, every run of other characters than
 * `a-z0-9` turned into one `-`, no `-` at either end. A name longer than 63 characters is cut to 54 and
 * given a `-` and 8 hex characters of the hash of the joined parts, so different long inputs still give
 * different names. (Short inputs that differ only in the characters replaced, such as `a.b` and `a_b`,
 * give the same name.) Every part must be a string or a number; a missing part throws rather than
 * building a name without it. Throws when nothing valid is left.
 *
 * @example `$dnsName(parent.metadata.name, "Cache_Redis", 0)` → `"web-cache-redis-0"` for a parent named `web`
 */
export function dnsName(...parts: unknown[]): string {
  if (parts.length === 0) throw new Error('$dnsName: needs at least one part');
  const joined = parts.map(namePart).join('-');
  const name = joined.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (name === '') throw new Error(`$dnsName: "${joined}" has no letters or digits to build a name from`);
  if (name.length <= DNS_LABEL_MAX) return name;
  const prefix = name.slice(0, DNS_LABEL_MAX - DNS_SUFFIX_HEX - 1).replace(/-+$/, '');
  return `${prefix}-${sha256Hex(joined).slice(0, DNS_SUFFIX_HEX)}`;
}

function metadataName(object: unknown): unknown {
  return isRecord(object) && isRecord(object.metadata) ? object.metadata.name : undefined;
}

/**
 * `$child(children, type, name)`: the observed object called `name` in an object map of a hook request
 * (`children`, `attachments` or `related`), where `type` is the map's outer key, `Kind.apiVersion`
 * (`"Deployment.apps/v1"`, `"Service.v1"`). `name` is the map's inner key (`web`, or `default/web` in a
 * v2 request); a plain name also finds the one object of that name in a v2 map. `undefined` when there
 * is no such object; throws when a plain name matches objects in several namespaces.
 *
 * @example `$child(children, "Deployment.apps/v1", parent.metadata.name).status.readyReplicas`
 */
export function child(children: unknown, type: unknown, name: unknown): unknown {
  if (children === undefined) return undefined;
  if (!isRecord(children)) throw new Error(`$child: the object map must be an object, got ${typeName(children)}`);
  const typeKey = requireString('child', type);
  const key = requireString('child', name);
  const objects = children[typeKey];
  if (!isRecord(objects)) return undefined;
  if (Object.hasOwn(objects, key)) return objects[key];
  if (key.includes('/')) return undefined;
  const named = Object.values(objects).filter((object) => metadataName(object) === key);
  if (named.length > 1) throw new Error(`$child: ${named.length} ${typeKey} objects are named "${key}"; give "namespace/name"`);
  return named[0];
}

/** `object` as a Kubernetes object for a readiness helper, `undefined` as not found; anything else throws. */
function kubeObjectOf(helper: string, object: unknown): KubeObject | undefined {
  if (object === undefined) return undefined;
  if (!isRecord(object) || !isRecord(object.metadata)) throw new Error(`$${helper}: expected a Kubernetes object, got ${typeName(object)}`);
  return object as unknown as KubeObject;
}

/**
 * `$readiness(object)`: the readiness kstatus judges `object` to have (docs/ordering-and-readiness.md,
 * "Readiness"), `{"status": "Current" | "InProgress" | "Failed" | "Terminating" | "NotFound" | "Unknown",
 * "message": …}`. Unlike the other helpers, a missing object is an answer, not `undefined`: it is
 * `NotFound`, so a child that does not exist yet reads as not ready. A child's `readyWhen` is not
 * applied here (the request's `readiness` field applies it).
 *
 * @example `$readiness($child(children, "Job.batch/v1", "migrate")).status` → `"InProgress"`
 */
export function readiness(object: unknown): Readiness {
  const { status, message } = readinessOf(kubeObjectOf('readiness', object));
  return { status, message };
}

/**
 * `$ready(object)`: `true` when kstatus judges `object` `Current`, else `false` (a missing object too).
 *
 * @example `$ready($child(children, "PersistentVolumeClaim.v1", "data"))` → `false` while the claim is Pending
 */
export function ready(object: unknown): boolean {
  return readinessOf(kubeObjectOf('ready', object)).status === 'Current';
}

/** Every helper, as bound into each compiled expression. */
export const JSONATA_HELPERS: readonly JsonataHelper[] = [
  { name: 'hash', implementation: hash },
  { name: 'base64encode', implementation: base64encode },
  { name: 'base64decode', implementation: base64decode },
  { name: 'matchLabels', implementation: matchLabels },
  { name: 'dnsName', implementation: dnsName },
  { name: 'child', implementation: child },
  { name: 'ready', implementation: ready },
  { name: 'readiness', implementation: readiness },
];
