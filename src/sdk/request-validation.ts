/**
 * Checks a hook request before a handler sees it, so a handler can trust the envelope its types
 * promise (a parent with a name, object maps of objects) and a malformed request is answered 400
 * with every bad field named, e.g. `request.parent.metadata.name: expected a string`.
 */
import { isRecord } from '../api/index.ts';
import type { CompositeRequest, CustomizeRequest, DecoratorRequest } from './types.ts';

/** A checked request, or the message naming what is wrong with it. */
export type CheckedRequest<Request> = { ok: true; request: Request } | { ok: false; error: string };

/** At most this many problems are listed; a request broken everywhere needs no 10 kB answer. */
const MAX_PROBLEMS = 10;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `base.key`, or `base["Pod.v1"]` for keys that are not identifiers. */
function pathOf(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Collects problems as `path: message` lines. */
class Problems {
  readonly list: string[] = [];

  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }

  /** True when `value` is a JSON object; otherwise records why not. */
  object(value: unknown, path: string): value is Record<string, unknown> {
    if (isRecord(value)) return true;
    this.add(path, value === undefined ? 'is required' : `expected an object, got ${describe(value)}`);
    return false;
  }

  string(value: unknown, path: string): void {
    if (typeof value !== 'string') this.add(path, value === undefined ? 'is required' : `expected a string, got ${describe(value)}`);
  }

  optionalString(value: unknown, path: string): void {
    if (value !== undefined) this.string(value, path);
  }

  optionalBoolean(value: unknown, path: string): void {
    if (value !== undefined && value !== null && typeof value !== 'boolean') this.add(path, `expected a boolean, got ${describe(value)}`);
  }

  /** `apiVersion`, `kind`, `metadata.name` and (when set) `metadata.namespace`: what every object has. */
  kubeObject(value: unknown, path: string): void {
    if (!this.object(value, path)) return;
    this.string(value.apiVersion, `${path}.apiVersion`);
    this.string(value.kind, `${path}.kind`);
    const metadata = value.metadata;
    if (!this.object(metadata, `${path}.metadata`)) return;
    this.string(metadata.name, `${path}.metadata.name`);
    this.optionalString(metadata.namespace, `${path}.metadata.namespace`);
  }

  /** An object map (absent or `null`, as Go encodes an empty map, is fine: the SDK fills in `{}`). */
  objectMap(value: unknown, path: string): void {
    if (value === undefined || value === null || !this.object(value, path)) return;
    for (const [type, group] of Object.entries(value)) {
      const groupPath = pathOf(path, type);
      if (!this.object(group, groupPath)) continue;
      for (const [key, obj] of Object.entries(group)) this.kubeObject(obj, pathOf(groupPath, key));
    }
  }

  /** loom's `readiness` (absent under Metacontroller): keyed as an object map, each entry a `{status, message}`. */
  readinessMap(value: unknown, path: string): void {
    if (value === undefined || value === null || !this.object(value, path)) return;
    for (const [type, group] of Object.entries(value)) {
      const groupPath = pathOf(path, type);
      if (!this.object(group, groupPath)) continue;
      for (const [key, verdict] of Object.entries(group)) {
        const verdictPath = pathOf(groupPath, key);
        if (!this.object(verdict, verdictPath)) continue;
        this.string(verdict.status, `${verdictPath}.status`);
        this.string(verdict.message, `${verdictPath}.message`);
      }
    }
  }

  /** The message for the client, or `undefined` when nothing is wrong. */
  message(): string | undefined {
    if (this.list.length === 0) return undefined;
    const shown = this.list.slice(0, MAX_PROBLEMS).join('; ');
    const more = this.list.length - MAX_PROBLEMS;
    return more > 0 ? `${shown}; and ${more} more` : shown;
  }
}

/** Opens the body: it must be an object; `controller`, when sent, must be an object too. */
function open(body: unknown, problems: Problems): Record<string, unknown> | undefined {
  if (!problems.object(body, 'request')) return undefined;
  const { controller, ...rest } = body;
  if (controller === undefined || controller === null) return rest;
  problems.object(controller, 'request.controller');
  return body;
}

function finish<Request>(problems: Problems, request: () => Request): CheckedRequest<Request> {
  const error = problems.message();
  return error === undefined ? { ok: true, request: request() } : { ok: false, error };
}

/**
 * Checks a CompositeController sync or finalize request and fills in what may be absent: object
 * maps as `{}`, `finalizing` as `finalizing` (false for sync, true for finalize).
 */
export function checkCompositeRequest(body: unknown, finalizing: boolean): CheckedRequest<CompositeRequest> {
  const problems = new Problems();
  const fields = open(body, problems);
  if (fields !== undefined) {
    problems.kubeObject(fields.parent, 'request.parent');
    problems.objectMap(fields.children, 'request.children');
    problems.objectMap(fields.related, 'request.related');
    problems.optionalBoolean(fields.finalizing, 'request.finalizing');
    problems.readinessMap(fields.readiness, 'request.readiness');
  }
  return finish(problems, () => ({
    ...fields,
    children: fields?.children ?? {},
    related: fields?.related ?? {},
    finalizing: fields?.finalizing ?? finalizing,
  }) as CompositeRequest);
}

/** Checks a DecoratorController sync or finalize request, filling in absent fields as above. */
export function checkDecoratorRequest(body: unknown, finalizing: boolean): CheckedRequest<DecoratorRequest> {
  const problems = new Problems();
  const fields = open(body, problems);
  if (fields !== undefined) {
    problems.kubeObject(fields.object, 'request.object');
    problems.objectMap(fields.attachments, 'request.attachments');
    problems.objectMap(fields.related, 'request.related');
    problems.optionalBoolean(fields.finalizing, 'request.finalizing');
    problems.readinessMap(fields.readiness, 'request.readiness');
  }
  return finish(problems, () => ({
    ...fields,
    attachments: fields?.attachments ?? {},
    related: fields?.related ?? {},
    finalizing: fields?.finalizing ?? finalizing,
  }) as DecoratorRequest);
}

/** Checks a customize request (for either controller kind). */
export function checkCustomizeRequest(body: unknown): CheckedRequest<CustomizeRequest> {
  const problems = new Problems();
  const fields = open(body, problems);
  if (fields !== undefined) problems.kubeObject(fields.parent, 'request.parent');
  return finish(problems, () => fields as unknown as CustomizeRequest);
}
