/**
 * The local control plane (etcd + kube-apiserver + kube-controller-manager built from Go modules)
 * used by `loom dev` and by the integration tests. What crosses this boundary: start it, stop it,
 * and check a PID.
 */
export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.ts';
export { ensureBinaries, type Binaries } from './binaries.ts';
export { isPidAlive, type ManagedProcess } from './managed-process.ts';
