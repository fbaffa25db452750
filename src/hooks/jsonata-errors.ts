/**
 * The two ways a JSONata hook fails that carry JSONata's own diagnosis. Both are {@link HookError}s, so
 * a caller that handles hook failures needs no special case; they add where in the expression it went
 * wrong, for messages, events and status conditions. Time, depth, abort and invalid-result failures are
 * plain `HookError`s (see `compileJsonataHook`).
 */
import { HookError } from './hook-error.ts';

/** Where a compile error is: the offset of the offending token's first character and its line and column. */
export interface ExpressionLocation {
  /** 0-based character offset into the expression. */
  position: number;
  /** 1-based. */
  line: number;
  /** 1-based, counting characters (UTF-16 code units) from the start of the line. */
  column: number;
}

/**
 * The expression does not compile. Thrown once, when the controller's hooks are built, so the
 * controller reports it (event and status condition) and does not start. The message reads
 * `sync hook: JSONata syntax error at line 3, column 7: Expected ")" before end of expression`.
 */
export class JsonataCompileError extends HookError implements ExpressionLocation {
  override readonly name = 'JsonataCompileError';
  readonly position: number;
  readonly line: number;
  readonly column: number;
  /** JSONata's error code (`S0202`, …), when it gave one. */
  readonly code: string | undefined;

  constructor(message: string, details: ExpressionLocation & { code: string | undefined }, options?: ErrorOptions) {
    super(message, options);
    this.position = details.position;
    this.line = details.line;
    this.column = details.column;
    this.code = details.code;
  }
}

/**
 * The expression failed while evaluating: a type error, `$error("…")`, a helper given a wrong
 * argument. The message reads `sync hook: JSONata error at line 3, column 9: boom`, naming the token
 * JSONata blames (a call at its `$`), or `sync hook: JSONata error: boom` when JSONata gave no
 * position. `code` is JSONata's error code (`D3137` for `$error`, `T2002`, …), `undefined` when the
 * failure did not say (an error thrown by a helper has no code); `position` is JSONata's own offset
 * (just past the token it blames, as in JSONata's messages), kept for code, never shown to users.
 * `cause` is the original error.
 */
export class JsonataEvaluationError extends HookError {
  override readonly name = 'JsonataEvaluationError';
  readonly code: string | undefined;
  readonly position: number | undefined;
  /** 1-based line of the blamed token; `undefined` with `position`. */
  readonly line: number | undefined;
  /** 1-based column of the blamed token; `undefined` with `position`. */
  readonly column: number | undefined;

  constructor(message: string, details: EvaluationErrorDetails, options?: ErrorOptions) {
    super(message, options);
    this.code = details.code;
    this.position = details.position;
    this.line = details.line;
    this.column = details.column;
  }
}

/** What a {@link JsonataEvaluationError} knows besides its message; each part may be missing. */
export interface EvaluationErrorDetails {
  code: string | undefined;
  position: number | undefined;
  line?: number | undefined;
  column?: number | undefined;
}
