/**
 * The exact strings loom shares with Metacontroller: API group and kinds, finalizer names,
 * annotations and labels. Existing objects, manifests and hooks depend on them byte for byte, so
 * they live in one place and nowhere else spells them out.
 */

/** API group of loom's (and Metacontroller's) own resources. */
export const API_GROUP = 'metacontroller.k8s.io';
/** The one served and stored version. */
export const API_VERSION = 'v1alpha1';
/** `apiVersion` of CompositeController, DecoratorController and ControllerRevision objects. */
export const GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

/** Kind and plural resource of each of loom's resources. */
export const KINDS = {
  compositeController: { kind: 'CompositeController', resource: 'compositecontrollers' },
  decoratorController: { kind: 'DecoratorController', resource: 'decoratorcontrollers' },
  controllerRevision: { kind: 'ControllerRevision', resource: 'controllerrevisions' },
} as const;

/**
 * Annotation every CRD in a `*.k8s.io` group must carry, or the API server rejects it; the value is
 * the one Metacontroller uses.
 */
export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';
/** Value of {@link API_APPROVED_ANNOTATION}. */
export const API_APPROVED_VALUE = 'unapproved, request not yet submitted';

/**
 * Finalizer a CompositeController puts on its parents when it has a finalize hook. The
 * `metacontroller.io/` prefix (not `metacontroller.k8s.io/`) is Metacontroller's, so parents keep
 * working when loom replaces it.
 */
export function compositeFinalizer(controllerName: string): string {
  return `metacontroller.io/compositecontroller-${controllerName}`;
}

/** Finalizer a DecoratorController puts on its targets when it has a finalize hook. */
export function decoratorFinalizer(controllerName: string): string {
  return `metacontroller.io/decoratorcontroller-${controllerName}`;
}

/** Annotation holding the JSON of the last desired child (dynamic-apply 3-way merge). */
export const LAST_APPLIED_ANNOTATION = 'metacontroller.k8s.io/last-applied-configuration';

/**
 * The field manager Metacontroller's writes are recorded under: its server-side apply's default
 * (`--apply-strategy-ssa-field-manager`), and the name its dynamic apply's updates get from its client.
 */
export const METACONTROLLER_FIELD_MANAGER = 'metacontroller';

/** Annotation stamped on every attachment with the name of the DecoratorController that owns it. */
export const DECORATOR_CONTROLLER_ANNOTATION = 'metacontroller.k8s.io/decorator-controller';

/** Label holding the parent UID on children (with `generateSelector`) and their ControllerRevisions. */
export const CONTROLLER_UID_LABEL = 'controller-uid';

/** ControllerRevision label: the parent's API group (`''` for core). */
export const REVISION_API_GROUP_LABEL = 'metacontroller.k8s.io/apiGroup';

/** ControllerRevision label: the parent's plural resource name. */
export const REVISION_RESOURCE_LABEL = 'metacontroller.k8s.io/resource';
