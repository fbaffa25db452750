/**
 * The Kubernetes manifests of a `loom init` scaffold: the CRD, the controller and an example object.
 * The example controller is the smallest useful one: each object of the new kind gets a ConfigMap
 * of the same name holding `spec.message`, and its status says whether that ConfigMap exists. A
 * ConfigMap, because it needs no image and no kubelet, so the scaffold runs on any cluster,
 * `loom dev`'s control plane included.
 */
import { hookFields, type Scaffold, type ScaffoldNames } from './init-names.ts';

/**
 * A CompositeController's status carries the generation it was synced at, and loom's Ready condition
 * (`readyCondition: true`, docs/ordering-and-readiness.md), kept as Kubernetes keeps conditions: one
 * per type. A decorator's status has neither.
 */
function compositeStatusSchema(scaffold: Scaffold): string {
  return scaffold.controller === 'composite'
    ? `
                observedGeneration:
                  type: integer
                  description: The generation loom last synced (written by loom with every status).
                conditions:
                  type: array
                  description: Ready, written by loom from the children's readiness.
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [type]
                  items:
                    type: object
                    required: [type, status]
                    properties:
                      type: { type: string }
                      status: { type: string, enum: ["True", "False", "Unknown"] }
                      reason: { type: string }
                      message: { type: string }
                      observedGeneration: { type: integer }
                      lastTransitionTime: { type: string, format: date-time }`
    : '';
}

/**
 * The Ready column: loom's Ready condition for a CompositeController (the children exist and are
 * ready), with its reason beside it in `kubectl get -o wide`; the hook's `ready` field for a
 * decorator, which has no such condition.
 */
function printerColumns(scaffold: Scaffold): string {
  return scaffold.controller === 'composite'
    ? `        - { name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status' }
        - { name: Reason, type: string, priority: 1, jsonPath: '.status.conditions[?(@.type=="Ready")].reason' }`
    : '        - { name: Ready, type: boolean, jsonPath: .status.ready }';
}

/** The CRD: namespaced, with a status subresource and a schema for every field the hook writes. */
export function crdYaml(scaffold: Scaffold): string {
  const { kind, plural, singular, group, version, crdName } = scaffold.names;
  return `# ${kind}: the type controller.yaml reconciles. Apply it before the controller.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${crdName}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: ${plural}, singular: ${singular}, kind: ${kind}, listKind: ${kind}List }
  versions:
    - name: ${version}
      served: true
      storage: true
      subresources: { status: {} }
      additionalPrinterColumns:
${printerColumns(scaffold)}
        - { name: Age, type: date, jsonPath: .metadata.creationTimestamp }
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            spec:
              type: object
              required: [message]
              properties:
                message:
                  type: string
                  description: What the ${kind}'s ConfigMap holds.
            status:
              type: object
              # The API server drops status fields the schema does not name: add each one the hook writes.
              properties:${compositeStatusSchema(scaffold)}
                ready:
                  type: boolean
                  description: The ConfigMap exists.
`;
}

/** An object of the new kind, to apply and to render. */
export function exampleYaml({ kind, apiVersion, sampleName }: ScaffoldNames): string {
  return `# An example ${kind}: apply it once crd.yaml and controller.yaml are in the cluster.
apiVersion: ${apiVersion}
kind: ${kind}
metadata:
  name: ${sampleName}
  namespace: default
spec:
  message: Hello from ${sampleName}
`;
}

/** The sync hook of the controller: the JSONata expression (composite: `parent`/`children`; decorator: `object`/`attachments`). */
function jsonataHook(scaffold: Scaffold): string {
  const { object, observed } = hookFields(scaffold.controller);
  return `      jsonata:
        expression: |
          (
            $name := ${object}.metadata.name;
            {
              "${observed}": [{
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": { "name": $name },
                "data": { "message": ${object}.spec.message }
              }],
              /* Every field written here needs its place in crd.yaml's status schema. */
              "status": { "ready": $exists($child(${observed}, "ConfigMap.v1", $name)) }
            }
          )
`;
}

/** The sync hook as a webhook at the address `npm start` serves the TypeScript hook on. */
function webhookHook(): string {
  return `      webhook:
        url: http://127.0.0.1:8080/sync
`;
}

/** What the controller's header comment says about where its hook runs. */
function hookComment(scaffold: Scaffold): string {
  return scaffold.hook === 'jsonata'
    ? '# The sync hook is the JSONata expression below: no hook service to run.'
    : '# The sync hook is hook.ts: `npm start` serves it where `url` points (loom running on this machine);\n' +
      '# in a cluster, serve it behind a Service and point `url` at that (see README.md).';
}

/** The rule naming the new kind, and the ConfigMaps it owns, for either controller kind. */
function resources(scaffold: Scaffold): string {
  const { apiVersion, plural } = scaffold.names;
  const configMaps = `    - apiVersion: v1
      resource: configmaps
      updateStrategy: { method: InPlace }
`;
  return scaffold.controller === 'composite'
    ? `  generateSelector: true
  # loom writes a Ready condition on each ${scaffold.names.kind}: True once its children exist and are ready.
  readyCondition: true
  parentResource:
    apiVersion: ${apiVersion}
    resource: ${plural}
  childResources:
${configMaps}`
    : `  resources:
    - apiVersion: ${apiVersion}
      resource: ${plural}
  attachments:
${configMaps}`;
}

/** The CompositeController or DecoratorController. */
export function controllerYaml(scaffold: Scaffold): string {
  const { kind, controllerName } = scaffold.names;
  const [type, verb] = scaffold.controller === 'composite' ? ['CompositeController', 'owns'] : ['DecoratorController', 'gets attached'];
  return `# ${controllerName}: each ${kind} ${verb} a ConfigMap of the same name holding spec.message,
# and its status says whether that ConfigMap exists. Needs crd.yaml applied first.
${hookComment(scaffold)}
apiVersion: metacontroller.k8s.io/v1alpha1
kind: ${type}
metadata:
  name: ${controllerName}
spec:
${resources(scaffold)}  hooks:
    sync:
${scaffold.hook === 'jsonata' ? jsonataHook(scaffold) : webhookHook()}`;
}
