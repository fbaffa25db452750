/**
 * The command lines of the three control-plane processes. Pure: paths and ports in, arguments out.
 * Flags follow what controller-runtime's envtest passes, plus the controller-manager (which envtest
 * lacks) so garbage collection and the workload controllers behave as in a real cluster.
 */
import type { Pki } from './pki.ts';

/**
 * Controllers a test cluster needs to behave like a real one whose Pods never run (no scheduler, no
 * kubelet): garbage collection, namespace deletion and the workload controllers.
 */
export const CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'persistentvolumeclaim-protection-controller',
] as const;

/** Ports of etcd: clients and peers. */
export interface EtcdPorts {
  client: number;
  peer: number;
}

/** etcd on loopback; no fsync, because the data dies with the run. */
export function etcdArgs(dataDir: string, ports: EtcdPorts): string[] {
  const client = `http://127.0.0.1:${ports.client}`;
  const peer = `http://127.0.0.1:${ports.peer}`;
  return [
    '--name=loom', `--data-dir=${dataDir}`,
    `--listen-client-urls=${client}`, `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`, `--initial-advertise-peer-urls=${peer}`, `--initial-cluster=loom=${peer}`,
    '--unsafe-no-fsync', '--logger=zap', '--log-level=warn',
  ];
}

/** Where the API server finds its storage, certificates and scratch space. */
export interface ApiServerSetup {
  etcdUrl: string;
  port: number;
  pki: Pki;
  certDir: string;
}

/** kube-apiserver with client-certificate authentication and RBAC on 127.0.0.1. */
export function apiServerArgs(setup: ApiServerSetup): string[] {
  const { pki, port } = setup;
  return [
    `--etcd-servers=${setup.etcdUrl}`,
    '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', `--secure-port=${port}`,
    `--tls-cert-file=${pki.servingCert}`, `--tls-private-key-file=${pki.servingKey}`, `--cert-dir=${setup.certDir}`,
    `--client-ca-file=${pki.caCert}`,
    `--service-account-issuer=https://127.0.0.1:${port}`,
    `--service-account-key-file=${pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--authorization-mode=RBAC',
    // No controller creates the `default` ServiceAccount, so with this plugin Pods could not be created.
    '--disable-admission-plugins=ServiceAccount',
    // As hardened clusters (OpenShift among them) run: setting blockOwnerDeletion on a child needs
    // `update` on its owner's `finalizers` subresource, which loom's scoped RBAC must grant.
    '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
    '--allow-privileged=true',
    // Less background work on small machines; nothing here needs fairness queues or pprof.
    '--enable-priority-and-fairness=false', '--profiling=false',
    // On SIGTERM, end open watches at once. By default the API server waits for every watch to finish on
    // its own, which no client does, so a stop took the whole 60 s shutdown timeout (or our SIGKILL).
    '--shutdown-watch-termination-grace-period=5s',
  ];
}

/** Where the controller-manager finds its credentials and serves its health endpoint. */
export interface ControllerManagerSetup {
  kubeconfigPath: string;
  port: number;
  certDir: string;
}

/** kube-controller-manager running {@link CONTROLLERS} as the admin user. */
export function controllerManagerArgs(setup: ControllerManagerSetup): string[] {
  const kubeconfig = setup.kubeconfigPath;
  return [
    `--kubeconfig=${kubeconfig}`,
    // Given only to silence warnings: /healthz is always allowed without authentication.
    `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`,
    `--controllers=${CONTROLLERS.join(',')}`,
    '--use-service-account-credentials=false', '--leader-elect=false',
    '--bind-address=127.0.0.1', `--secure-port=${setup.port}`, `--cert-dir=${setup.certDir}`,
    // The default 20 QPS throttles garbage collection of many objects at once.
    '--kube-api-qps=100', '--kube-api-burst=200',
  ];
}
