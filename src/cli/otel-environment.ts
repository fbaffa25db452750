/**
 * Whether the standard OpenTelemetry variables ask for traces: an OTLP endpoint is set
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`), the traces exporter is OTLP
 * (`OTEL_TRACES_EXPORTER` unset or naming `otlp`; `none` turns traces off) and the SDK is not disabled
 * (`OTEL_SDK_DISABLED`). Without an endpoint loom exports nothing, rather than send to a default
 * collector address that is usually not there.
 */
export function tracesWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim().toLowerCase());
  if (!exporters.includes('otlp')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}
