/**
 * `loom validate`'s warning about loom's child annotations on a DecoratorController's attachments
 * (docs/ordering-and-readiness.md): a decorator ignores the order and policy annotations, as
 * Metacontroller does, so an attachment an inline sync or finalize expression builds literally with
 * one of them is warned about. `loom.dev/ready-when` still counts: it is the attachment's readiness in
 * the hook's request.
 */
import { CHILD_ANNOTATIONS, READY_WHEN_ANNOTATION, type FieldProblem, type Hook } from '../api/index.ts';
import { literalObjects } from './literal-objects.ts';

/** The annotations a decorator ignores. */
const IGNORED = CHILD_ANNOTATIONS.filter((a) => a !== READY_WHEN_ANNOTATION);

/** A warning for each order or policy annotation on a literal attachment of `hooks`. */
export function attachmentAnnotationWarnings(hooks: { sync?: Hook | undefined; finalize?: Hook | undefined }): FieldProblem[] {
  return (['sync', 'finalize'] as const).flatMap((name) => {
    const path = `spec.hooks.${name}.jsonata.expression`;
    return literalObjects(hooks[name]?.jsonata?.expression ?? '', 'attachments').flatMap((object) => {
      const what = object.name === undefined ? `a ${object.kind}` : `${object.kind} ${JSON.stringify(object.name)}`;
      return Object.keys(object.annotations ?? {}).filter((key) => IGNORED.includes(key)).map((key) => ({
        path,
        message: `line ${object.line}, column ${object.column}: ${what}: ${key}: a DecoratorController ignores loom's order and policy annotations on attachments, as Metacontroller does`,
      }));
    });
  });
}
