/**
 * Traces of syncs (README, "Traces"): one trace per reconcile, with a span for each hook call and each
 * write inside it. The engine knows only this interface and a do-nothing default; `loom run` hands in
 * OpenTelemetry when the standard `OTEL_*` variables configure an exporter (`tracing/otel-tracing.ts`),
 * so nothing here loads its SDK.
 */

/** What a span says about its work; `undefined` values are left out. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** Starts spans around work, each a child of the span its caller runs in. */
export interface Tracing {
  /**
   * Runs `fn` in a new span called `name`: a child of the span the caller runs in, or a new trace's
   * root. The span ends when `fn` settles; an error it throws is recorded on the span and rethrown.
   */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T>;
  /** {@link inSpan}, but only inside a trace: called outside any span, `fn` runs untraced (a write that is not part of a sync). */
  inChildSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T>;
  /** Adds attributes to the span the caller runs in (what it learnt along the way); nothing outside a span. */
  annotate(attributes: SpanAttributes): void;
  /** The headers that carry the current span to a service called now (W3C `traceparent`); none when not tracing. */
  outgoingHeaders(): Record<string, string>;
}

/** Tracing switched off: runs the work, records nothing. */
export const NO_TRACING: Tracing = {
  inSpan: (_name, _attributes, fn) => fn(),
  inChildSpan: (_name, _attributes, fn) => fn(),
  annotate: () => undefined,
  outgoingHeaders: () => ({}),
};
