/**
 * loom's {@link Tracing} on OpenTelemetry (README, "Traces"): spans exported in batches over OTLP/HTTP,
 * a sync's spans nested through async-local context, and W3C trace context in the headers of hook
 * calls, so a hook that continues the trace (kube-loom-sdk does) shows its spans inside loom's. The
 * standard `OTEL_*` variables configure it: the exporter reads the endpoint, headers, certificates and
 * timeout; the resource reads `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`; the batch processor
 * reads `OTEL_BSP_*`. `main.ts` imports this module only when tracing is on.
 */
import { context, defaultTextMapSetter, trace, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { SpanAttributes, Tracing } from '../engine/index.ts';
import { recordFailure } from './span-failure.ts';

/** Tracing that exports until it is shut down. */
export interface ExportingTracing extends Tracing {
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

function defined(attributes: SpanAttributes): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) kept[key] = value;
  return kept;
}

/** Starts exporting spans of `service.name` loom (unless `OTEL_SERVICE_NAME` says otherwise). */
export function startOtelTracing(version: string): ExportingTracing {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'loom', 'service.version': version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })] });
  // The context manager is process-wide (the OpenTelemetry API has one); loom runs one host per process.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const propagator = new W3CTraceContextPropagator();
  const tracer = provider.getTracer('loom', version);

  const inSpan = <T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T> =>
    tracer.startActiveSpan(name, { attributes: defined(attributes) }, async (span) => {
      try {
        return await fn();
      } catch (err) {
        recordFailure(span, err);
        throw err;
      } finally {
        span.end();
      }
    });

  return {
    inSpan,
    inChildSpan: (name, attributes, fn) => (trace.getActiveSpan() ? inSpan(name, attributes, fn) : fn()),
    annotate: (attributes) => void trace.getActiveSpan()?.setAttributes(defined(attributes)),
    outgoingHeaders() {
      const carrier: Record<string, string> = {};
      propagator.inject(context.active(), carrier, defaultTextMapSetter);
      return carrier;
    },
    async shutdown() {
      await provider.shutdown();
      contextManager.disable();
      context.disable();
    },
  };
}
