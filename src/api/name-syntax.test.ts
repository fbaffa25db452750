import { describe, expect, it } from 'vitest';
import { FieldReader } from './field-reader.ts';
import { checkApiVersion, checkKey, checkLabelValue, checkResourceName } from './name-syntax.ts';

/** The messages `check` records for `text`. */
function problems(check: (r: FieldReader, text: string) => void, text: string): string[] {
  const r = FieldReader.root(text);
  check(r, text);
  return r.report.problems.map((p) => p.message);
}

describe('name syntax', () => {
  it.each(['v1', 'apps/v1', 'metacontroller.k8s.io/v1alpha1', 'test.loom.dev/v1', '1.example/v2beta3'])('takes apiVersion %j', (text) => {
    expect(problems(checkApiVersion, text)).toEqual([]);
  });

  it.each(['apps/v1/extra', '/v1', 'apps/', 'Apps/v1', 'apps /v1', 'v1 beta', 'apps/v1\u0000', 'apps..io/v1', '-apps/v1'])('refuses apiVersion %j', (text) => {
    expect(problems(checkApiVersion, text)).toEqual([expect.stringContaining('expected group/version or version')]);
  });

  it.each(['pods', 'configmaps', 'horizontalpodautoscalers', 'x509certs', 'my-widgets'])('takes resource %j', (text) => {
    expect(problems(checkResourceName, text)).toEqual([]);
  });

  it.each(['Pods', 'pods/status', 'pods.v1', 'po ds', 'pods\u0007', '-pods'])('refuses resource %j', (text) => {
    expect(problems(checkResourceName, text)).toEqual([expect.stringContaining('expected a lower-case plural resource name')]);
  });

  it.each(['app', 'App_1.x', 'app.kubernetes.io/name', 'example.com/Tier-2', `${'a'.repeat(253)}/${'n'.repeat(63)}`])('takes key %j', (key) => {
    expect(problems((r, t) => checkKey(r, t, 'label'), key)).toEqual([]);
  });

  it.each(['', '/app', 'app/', 'a b', 'ключ', '-app', 'app_', 'Example.com/app', 'a/b/c', 'n'.repeat(64), `${'a'.repeat(254)}/n`])('refuses key %j', (key) => {
    expect(problems((r, t) => checkKey(r, t, 'annotation'), key)).toEqual([expect.stringContaining('not a valid annotation key')]);
  });

  it.each(['', 'web', 'Web-1_x.y', 'v'.repeat(63)])('takes label value %j', (value) => {
    expect(problems(checkLabelValue, value)).toEqual([]);
  });

  it.each(['a b', 'a\nb', '-web', 'web.', 'v'.repeat(64), 'a/b'])('refuses label value %j', (value) => {
    expect(problems(checkLabelValue, value)).toEqual([expect.stringContaining('not a valid label value')]);
  });
});
