/**
 * Kubernetes label selectors (`matchLabels` + `matchExpressions`), matched against a label map. The
 * same semantics serve Metacontroller's annotation selectors (`matchAnnotations`).
 */

/** One `matchExpressions` entry. */
export interface SelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** A `metav1.LabelSelector`. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: SelectorRequirement[];
}

/** Thrown for a selector the API server would reject (unknown operator, missing values). */
export class InvalidSelectorError extends Error {
  override readonly name = 'InvalidSelectorError';
}

function requirementMatches(req: SelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      if (values.length === 0) throw new InvalidSelectorError(`operator In on "${req.key}" needs values`);
      return has && values.includes(labels[req.key]!);
    case 'NotIn':
      if (values.length === 0) throw new InvalidSelectorError(`operator NotIn on "${req.key}" needs values`);
      return !has || !values.includes(labels[req.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      throw new InvalidSelectorError(`unknown selector operator "${String((req as { operator: unknown }).operator)}"`);
  }
}

/**
 * True when `labels` satisfy every part of `selector`. An empty selector (`{}`) matches everything,
 * as in Kubernetes; callers that must treat "no selector" as "nothing" check for `undefined` first.
 */
export function matchesSelector(selector: LabelSelector, labels: Readonly<Record<string, string>> = {}): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((req) => requirementMatches(req, labels));
}

/** One requirement as kubectl prints it: `k in (a,b)`, `k notin (a)`, `k`, `!k`. */
function formatRequirement(req: SelectorRequirement): string {
  const values = (req.values ?? []).join(',');
  switch (req.operator) {
    case 'In':
      return `${req.key} in (${values})`;
    case 'NotIn':
      return `${req.key} notin (${values})`;
    case 'Exists':
      return req.key;
    default:
      return `!${req.key}`;
  }
}

/** `selector` as kubectl and Metacontroller print it (`app=web,tier in (a,b),!legacy`), for messages. */
export function formatSelector(selector: LabelSelector): string {
  const labels = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  return [...labels, ...(selector.matchExpressions ?? []).map(formatRequirement)].join(',');
}
