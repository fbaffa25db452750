/**
 * The names a `loom init` scaffold is built from, all derived from the kind, group and version the
 * user gave, and the checks that keep them valid for the API server: a CRD whose kind, plural or
 * group it rejects would only fail at `kubectl apply`, long after the scaffold was written.
 */
import { regularPlural } from '../offline/render-types.ts';

/** What the user chose. */
export interface ApiType {
  /** `Website`: UpperCamelCase. */
  kind: string;
  /** `example.com`. */
  group: string;
  /** `v1alpha1`. */
  version: string;
}

/** Every name the templates use. */
export interface ScaffoldNames extends ApiType {
  /** `websites`: the resource, as the API server derives it (and as `loom render` guesses it). */
  plural: string;
  /** `website`. */
  singular: string;
  /** `example.com/v1alpha1`. */
  apiVersion: string;
  /** `websites.example.com`: the CRD's name. */
  crdName: string;
  /** `web-app` for `WebApp`: the kind in kebab case, for object and file names. */
  kebab: string;
  /** `webApp` for `WebApp`: the kind in camel case, for TypeScript identifiers. */
  camel: string;
  /** `web-app-controller`: the controller's and the npm package's name. */
  controllerName: string;
  /** `web-app-sample`: the example parent's name. */
  sampleName: string;
}

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const GROUP = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})+$`);
/** Kubernetes' version convention, which the API server sorts by: v1, v2beta1, v1alpha3. */
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
/** The API server's limit on a resource name (a DNS-1035 label). */
const MAX_PLURAL = 63;

/** `HTTPRoute` → `http-route`, `WebApp` → `web-app`. */
export function kebabCase(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/([A-Z])([A-Z][a-z])/g, '$1-$2').toLowerCase();
}

function camelCase(kebab: string): string {
  return kebab.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** What is wrong with `kind`, or `undefined`. */
export function kindProblem(kind: string): string | undefined {
  if (!KIND.test(kind)) {
    const hint = /^[a-z][A-Za-z0-9]*$/.test(kind) ? ` (did you mean ${kind[0]!.toUpperCase()}${kind.slice(1)}?)` : '';
    return `--kind: "${kind}" is not a kind: a letter and then letters or digits, UpperCamelCase like Website${hint}`;
  }
  const plural = regularPlural(kind);
  return plural.length > MAX_PLURAL ? `--kind: "${kind}" is too long: its plural "${plural}" has more than ${MAX_PLURAL} characters` : undefined;
}

/** What is wrong with `group`, or `undefined`. */
export function groupProblem(group: string): string | undefined {
  return GROUP.test(group) && group.length <= 253
    ? undefined
    : `--group: "${group}" is not an API group: a DNS name with at least one dot, such as example.com`;
}

/** What is wrong with `version`, or `undefined`. */
export function versionProblem(version: string): string | undefined {
  return VERSION.test(version) ? undefined : `--version: "${version}" is not an API version such as v1, v1alpha1 or v2beta1`;
}

/** Every name of the scaffold; the type must have passed the checks above. */
export function scaffoldNames(type: ApiType): ScaffoldNames {
  const plural = regularPlural(type.kind);
  const kebab = kebabCase(type.kind);
  return {
    ...type,
    plural,
    singular: type.kind.toLowerCase(),
    apiVersion: `${type.group}/${type.version}`,
    crdName: `${plural}.${type.group}`,
    kebab,
    camel: camelCase(kebab),
    controllerName: `${kebab}-controller`,
    sampleName: `${kebab}-sample`,
  };
}

/** The hook's language: an inline JSONata expression, or a TypeScript service on kube-loom-sdk. */
export type HookLanguage = 'jsonata' | 'typescript';

/** The controller's kind: a CompositeController owns children; a DecoratorController attaches to objects. */
export type ControllerKind = 'composite' | 'decorator';

/** Everything a scaffold is made from. */
export interface Scaffold {
  names: ScaffoldNames;
  hook: HookLanguage;
  controller: ControllerKind;
}

/** The request fields a sync hook reads: the object it is called for, and its observed objects. */
export function hookFields(controller: ControllerKind): { object: 'parent' | 'object'; observed: 'children' | 'attachments' } {
  return controller === 'composite' ? { object: 'parent', observed: 'children' } : { object: 'object', observed: 'attachments' };
}
