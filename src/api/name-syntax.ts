/**
 * The syntax Kubernetes gives API versions, resource names, label keys and label values, checked where
 * a controller manifest names them. A value outside it can never name a type discovery serves or a
 * label an object carries: the controller would wait for discovery forever, or select nothing (or,
 * through `NotIn` and `DoesNotExist`, everything) without a word. Metacontroller refuses such selectors
 * too (`metav1.LabelSelectorAsSelector`).
 */
import type { FieldReader } from './field-reader.ts';

/** A DNS-1123 label: what a version, a CRD's plural and each part of a group are made of. */
const DNS_LABEL = '[a-z0-9](?:[-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN = `${DNS_LABEL}(?:\\.${DNS_LABEL})*`;
/** `version` (core group) or `group/version`. */
const API_VERSION = new RegExp(`^(?:${DNS_SUBDOMAIN}/)?${DNS_LABEL}$`);
/** Discovery's resource names are lower case, with no `/` (a subresource is not a resource). */
const RESOURCE = new RegExp(`^${DNS_LABEL}$`);
/** The name part of a label key, and a non-empty label value. */
const QUALIFIED_NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const SUBDOMAIN = new RegExp(`^${DNS_SUBDOMAIN}$`);
const MAX_NAME = 63;
const MAX_PREFIX = 253;

/** Records a problem unless `text` is an `apiVersion` (`apps/v1`, `v1`). */
export function checkApiVersion(r: FieldReader, text: string): void {
  if (!API_VERSION.test(text)) r.problem(`expected group/version or version (lower case, such as apps/v1 or v1); got ${JSON.stringify(text)}`);
}

/** Records a problem unless `text` is a resource name (`deployments`). */
export function checkResourceName(r: FieldReader, text: string): void {
  if (!RESOURCE.test(text)) r.problem(`expected a lower-case plural resource name such as deployments; got ${JSON.stringify(text)}`);
}

/** `[prefix/]name`: the prefix a DNS subdomain, the name 1–63 letters, digits, `-`, `_`, `.`. */
function isQualifiedKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const name = key.slice(slash + 1);
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const prefixOk = prefix === undefined || (prefix.length <= MAX_PREFIX && SUBDOMAIN.test(prefix));
  return prefixOk && name.length <= MAX_NAME && QUALIFIED_NAME.test(name);
}

/** Records a problem unless `key` is a label (or annotation: same syntax) key; `what` names which. */
export function checkKey(r: FieldReader, key: string, what: 'label' | 'annotation'): void {
  if (!isQualifiedKey(key)) {
    r.problem(`not a valid ${what} key: expected [prefix/]name, the name up to 63 letters, digits, "-", "_" or "." starting and ending with a letter or digit`);
  }
}

/** Records a problem unless `value` is a label value (empty, or like a key's name part). */
export function checkLabelValue(r: FieldReader, value: string): void {
  if (value !== '' && (value.length > MAX_NAME || !QUALIFIED_NAME.test(value))) {
    r.problem(`not a valid label value: expected up to 63 letters, digits, "-", "_" or "." starting and ending with a letter or digit; got ${JSON.stringify(value)}`);
  }
}
