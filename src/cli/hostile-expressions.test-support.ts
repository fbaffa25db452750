/**
 * Two JSONata sync expressions that would take down a host evaluating them in its own process, for
 * the tests of the offline tools (`loom render`, `loom plan`, `loom validate`), and the controller
 * manifest that runs one:
 * - `memory` builds an array of 150 million strings: V8 ends the process that tries ("Fatal
 *   JavaScript invalid size error"), or it runs out of heap first. It takes a second or two, against
 *   a budget of 30 s, but on a loaded machine the time bound may still win, so any of the three
 *   bounds is accepted: what matters is that a bound stopped it, with a clear error and no crash;
 * - `backtracking` matches a regular expression with a lookahead, which V8's linear-time fallback
 *   cannot run, so the backtracking engine takes about 2^30 steps in one native call that no step
 *   budget can interrupt (minutes), against a budget of 1 s.
 */
import { dump } from 'js-yaml';

/** One hostile expression and the failure each offline tool must report for it. */
export interface HostileExpression {
  /** Put into the sync hook's answer as the parent's status. */
  expression: string;
  /** The hook's `timeout`. */
  timeout: string;
  /** The error line: the hook, and a bound that stopped it (any that may win the race on a loaded machine). */
  failure: RegExp;
}

/** The two expressions; see the module comment. */
export const HOSTILE_EXPRESSIONS = {
  memory: {
    expression: '$count($split($pad("a", 150000000), ""))',
    timeout: '30s',
    failure: /sync hook: JSONata evaluation (built a value larger than JavaScript allows|exceeded the memory limit of \d+ MiB|timed out after 30000 ms; its evaluator process was stopped)$/m,
  },
  backtracking: {
    expression: '$match($pad("", 30, "a") & "!", /(a+)+(?=b)/)',
    timeout: '1s',
    failure: /sync hook: JSONata evaluation timed out after 1000 ms; its evaluator process was stopped$/m,
  },
} as const satisfies Record<string, HostileExpression>;

/** What V8 prints when it ends a process: none of it may reach the user of an offline tool. */
export const NATIVE_CRASH = /Native stack trace|Fatal JavaScript|FATAL ERROR|Fatal error in/;

/** The YAML of a CompositeController named `name` over `parentResource` whose sync hook evaluates `hostile`. */
export function hostileController(name: string, parentResource: { apiVersion: string; resource: string }, hostile: HostileExpression): string {
  const { expression, timeout } = hostile;
  return dump({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name, labels: { 'loom-test': name } },
    spec: {
      generateSelector: true, parentResource,
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { jsonata: { timeout, expression: `{ "status": { "value": ${expression} }, "children": [] }` } } },
    },
  }, { lineWidth: -1 });
}
