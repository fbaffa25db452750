/**
 * The only folder that talks to Kubernetes (and the only importer of `@kubernetes/client-node`, which it
 * loads only for a kubeconfig user with a legacy `auth-provider`).
 * What crosses its boundary: the REST client, discovery, shared informers with indexed stores, the
 * object writer, the event recorder and the API error helpers.
 */
export { loadKubeConfig, SERVICE_ACCOUNT_DIR, type KubeConfig, type KubeConfigSource, type KubeEnvironment } from './kube-config.ts';
export { createRestClient, type KubeConnection, type RestClient, type RestRequest, type WatchEvent, type Query, type RequestObserver } from './rest-client.ts';
export { withTenant } from './tenant-client.ts';
export { KubeApiError, isForbidden, isNotFound, isConflict, isAlreadyExists, isGone, isInvalid } from './kube-api-error.ts';
export { resourcePath, groupVersionPath, type ResourceType, type PathTarget } from './resource-path.ts';
export { discover, snapshotOf, type DiscoverySnapshot } from './discovery.ts';
export { createObjectStore, storeKey, type ObjectStore, type ReadonlyObjectStore } from './object-store.ts';
export { createInformer, type Informer, type InformerHandler, type InformerScope } from './informer.ts';
export { createInformerRegistry, type InformerFilter, type InformerRegistry, type InformerLease } from './informer-registry.ts';
export { createObjectWriter, writerFromDiscovery, type ObjectWriter, type ObjectRef, type ApplyOptions, type CallOptions, type CreateOptions, type DeleteOptions, type TypeResolver } from './object-writer.ts';
export { createEventRecorder, type EventBudget, type EventDropReason, type EventRecorder, type EventSpec } from './event-recorder.ts';
export { isEstablished, waitForCrdsEstablished, type WaitForCrdsOptions } from './crd-established.ts';
export { stringSharer } from './shared-strings.ts';
