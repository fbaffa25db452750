/**
 * The service-per-pod example's hooks, for two DecoratorControllers served by one process:
 *
 * - `service-per-pod` (`/service-per-pod/sync`, `/service-per-pod/finalize`), on StatefulSets
 *   annotated `service-per-pod-label` and `service-per-pod-ports`: one Service per Pod ordinal,
 *   `<sts>-<i>`, selecting the Pod by the label the first annotation names. Its finalize hook (called
 *   when the StatefulSet is deleted or loses an annotation) asks for no Services and reports
 *   finalized once none is left.
 * - `pod-name-label` (`/pod-name-label/sync`), on Pods annotated `pod-name-label: <key>`: labels
 *   the Pod `<key>: <its name>`, so a Service can select that one Pod.
 *
 * Run alone with `node examples/service-per-pod/hook.ts`: it listens on `HOST`:`PORT` (default
 * 0.0.0.0:8080) and logs its URL. `loom render --hook-module` loads the default export.
 */
import {
  attachmentsOf, createHookServer, desired, type DecoratorRequest, type DecoratorResponse, type HookServer, type HookServerOptions,
  type KubeObject,
} from 'kube-loom-sdk';

/** Names the label key the per-Pod Services select on; empty means {@link STATEFULSET_POD_NAME_LABEL}. */
export const LABEL_ANNOTATION = 'service-per-pod-label';
/** Comma-separated `port[:targetPort]` pairs, e.g. `80:8080,443:8443`. */
export const PORTS_ANNOTATION = 'service-per-pod-ports';
/** On a Pod: the label key to set to the Pod's own name. */
export const POD_NAME_LABEL_ANNOTATION = 'pod-name-label';
/** The label the StatefulSet controller itself puts on every Pod, holding the Pod's name. */
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

/** The target of `service-per-pod`, as far as the hook reads it. */
export interface StatefulSet extends KubeObject {
  spec?: { replicas?: number };
}

/** A `service-per-pod` sync or finalize request (v2 keys in controller.yaml; v1 works as well). */
export type ServicePerPodRequest = DecoratorRequest<StatefulSet, 'Service.v1'>;

/** A Service port. */
export interface ServicePort {
  name: string;
  port: number;
  targetPort: number;
}

/**
 * An invalid `service-per-pod-ports` annotation; the sync fails with this message. It is meant for the
 * StatefulSet's owner, so `expose` has the hook server answer it to loom (other errors it only logs).
 */
export class PortsAnnotationError extends Error {
  override name = 'PortsAnnotationError';
  readonly expose = true;
}

function portNumber(text: string, annotation: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new PortsAnnotationError(`${PORTS_ANNOTATION}: "${annotation}": ${JSON.stringify(text)} is not a port (1-65535)`);
  return port;
}

/** `80:8080,443` → ports 80 (to 8080) and 443 (to 443), named `port-80` and `port-443`. */
export function parsePorts(annotation: string): ServicePort[] {
  return annotation.split(',').map((pair) => {
    const [port = '', targetPort = port, ...rest] = pair.trim().split(':');
    if (rest.length > 0) throw new PortsAnnotationError(`${PORTS_ANNOTATION}: "${annotation}": "${pair}" has more than one ':'`);
    const number = portNumber(port, annotation);
    return { name: `port-${number}`, port: number, targetPort: portNumber(targetPort, annotation) };
  });
}

/** One Service per Pod ordinal; loom owns them by the StatefulSet and deletes any beyond `replicas`. */
export function servicePerPodSync(request: ServicePerPodRequest): DecoratorResponse {
  const sts = request.object;
  const name = sts.metadata.name ?? '';
  const annotations = sts.metadata.annotations ?? {};
  const labelKey = annotations[LABEL_ANNOTATION] || STATEFULSET_POD_NAME_LABEL;
  const ports = parsePorts(annotations[PORTS_ANNOTATION] ?? '');
  const replicas = sts.spec?.replicas ?? 1;
  return {
    attachments: Array.from({ length: replicas }, (_, ordinal) => desired({
      apiVersion: 'v1', kind: 'Service', name: `${name}-${ordinal}`,
      labels: { 'app.kubernetes.io/managed-by': 'service-per-pod' },
      spec: { selector: { [labelKey]: `${name}-${ordinal}` }, ports },
    })),
  };
}

/** Deletes every Service; done once none is observed any more. */
export function servicePerPodFinalize(request: ServicePerPodRequest): DecoratorResponse {
  return { attachments: [], finalized: attachmentsOf(request, 'Service.v1').length === 0 };
}

/** Labels the Pod with its own name under the key its annotation names. */
export function podNameLabelSync(request: DecoratorRequest): DecoratorResponse {
  const pod = request.object;
  const key = pod.metadata.annotations?.[POD_NAME_LABEL_ANNOTATION];
  return key ? { labels: { [key]: pod.metadata.name ?? '' } } : {};
}

/** A hook server for both decorators; `logger` defaults to the SDK's own (pino at info). */
export function servicePerPodHook(options: Pick<HookServerOptions, 'logger' | 'handleSignals'> = {}): HookServer {
  return createHookServer({
    ...options,
    decorator: [
      { prefix: '/service-per-pod', sync: servicePerPodSync, finalize: servicePerPodFinalize },
      { prefix: '/pod-name-label', sync: podNameLabelSync },
    ],
  });
}

/** For `loom render --hook-module`: a quiet server, called in-process, never listening. */
export default (): HookServer => servicePerPodHook({ logger: false });

if (import.meta.main) {
  await servicePerPodHook({ handleSignals: true }).listen({ host: process.env.HOST ?? '0.0.0.0', port: Number(process.env.PORT ?? 8080) });
}
