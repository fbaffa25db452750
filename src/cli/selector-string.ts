/**
 * Label selectors written as strings, as `kubectl -l` and `--target-label-selector` take them:
 * `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a` (exists), `!a` (does not exist), joined by
 * commas.
 */
import type { LabelSelector, SelectorRequirement } from '../api/index.ts';

/** Thrown for a selector string that does not parse; the message quotes the bad part. */
export class SelectorSyntaxError extends Error {
  override readonly name = 'SelectorSyntaxError';
}

/** Splits at commas outside parentheses. */
function terms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

const KEY = '[A-Za-z0-9][-A-Za-z0-9_./]*';
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`);
const EQUALITY = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*([-A-Za-z0-9_.]*)$`);
const EXISTS = new RegExp(`^(!?)(${KEY})$`);

function requirement(term: string): SelectorRequirement | [string, string] {
  let m = SET.exec(term);
  if (m) return { key: m[1]!, operator: m[2] === 'in' ? 'In' : 'NotIn', values: m[3]!.split(',').map((v) => v.trim()).filter(Boolean) };
  m = EQUALITY.exec(term);
  if (m) return m[2] === '!=' ? { key: m[1]!, operator: 'NotIn', values: [m[3]!] } : [m[1]!, m[3]!];
  m = EXISTS.exec(term);
  if (m) return { key: m[2]!, operator: m[1] ? 'DoesNotExist' : 'Exists' };
  throw new SelectorSyntaxError(`cannot parse "${term}" in a label selector`);
}

/** Parses a selector string; `''` is the empty selector (matches everything). */
export function parseSelectorString(text: string): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: SelectorRequirement[] = [];
  for (const term of terms(text)) {
    const parsed = requirement(term);
    if (Array.isArray(parsed)) matchLabels[parsed[0]] = parsed[1];
    else matchExpressions.push(parsed);
  }
  return {
    ...(Object.keys(matchLabels).length > 0 ? { matchLabels } : {}),
    ...(matchExpressions.length > 0 ? { matchExpressions } : {}),
  };
}
