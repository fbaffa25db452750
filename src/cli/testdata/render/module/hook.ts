/**
 * A DecoratorController hook as a fastify app, the shape `loom render --hook-module` loads: the
 * default export is the instance itself. For each exposed Service it marks the Service and attaches
 * an Ingress for the host in its `example.com/host` annotation.
 */
import Fastify from 'fastify';

interface SyncRequest {
  object: { metadata: { name: string; annotations?: Record<string, string> } };
}

/** The hook's answer for one Service. */
export function exposeSync(request: SyncRequest) {
  const { name, annotations = {} } = request.object.metadata;
  const host = annotations['example.com/host'] ?? `${name}.local`;
  return {
    labels: { exposed: 'true', stale: null },
    annotations: { 'example.com/ingress': name },
    attachments: [{
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name },
      spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }] } }] },
    }],
  };
}

const app = Fastify();
app.post('/sync', (request) => exposeSync(request.body as SyncRequest));
export default app;
