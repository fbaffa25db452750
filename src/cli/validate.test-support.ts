/** What the `loom validate` tests share: files held in memory and a minimal CompositeController. */
import { validateFiles, type ReadTextFile, type ValidationResult } from './validate.ts';

/** Reads from an in-memory map of file name to text; unknown names fail like a missing file. */
export function memoryFiles(files: Record<string, string>): ReadTextFile {
  return async (name) => {
    const text = files[name];
    if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${name}'`);
    return Promise.resolve(text);
  };
}

/** A minimal CompositeController as YAML (JSON is YAML), with `spec` fields merged in. */
export function composite(spec: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'metacontroller.k8s.io/v1alpha1',
    kind: 'CompositeController',
    metadata: { name: 'c' },
    spec: { parentResource: { apiVersion: 'example.com/v1', resource: 'widgets' }, hooks: { sync: { webhook: { url: 'http://h/sync' } } }, ...spec },
    ...envelope,
  });
}

/** Validates one file of text `text` named `name`. */
export async function validateOne(name: string, text: string): Promise<ValidationResult> {
  return validateFiles([name], memoryFiles({ [name]: text }));
}
