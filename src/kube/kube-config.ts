/**
 * Loads a kubeconfig the way kubectl users expect: an explicit file and context, else `$KUBECONFIG` /
 * `~/.kube/config`, else the in-cluster service account. The CLI reads the environment and passes
 * what it found; this module never looks at `process.env` itself.
 */
import { KubeConfig } from '@kubernetes/client-node';

/** Where the kubeconfig comes from. */
export interface KubeConfigSource {
  /** `--kubeconfig`; when absent, client-node's default chain is used. */
  path?: string | undefined;
  /** `--context`; when absent, the file's current context. */
  context?: string | undefined;
}

/** Loads the configuration; throws with a clear message when the context does not exist. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const kc = new KubeConfig();
  if (source.path) kc.loadFromFile(source.path);
  else kc.loadFromDefault();
  if (source.context) {
    if (!kc.getContextObject(source.context)) {
      throw new Error(`kubeconfig has no context "${source.context}" (have: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    }
    kc.setCurrentContext(source.context);
  }
  return kc;
}
