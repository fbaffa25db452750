{{/* The chart's name, or nameOverride. */}}
{{- define "loom.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the release name, with the chart's name unless it already holds it. */}}
{{- define "loom.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Where loom runs. */}}
{{- define "loom.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride }}
{{- end }}

{{- define "loom.selectorLabels" -}}
app.kubernetes.io/name: {{ include "loom.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "loom.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "loom.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "loom.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "loom.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The port of a listen address such as ":9999" or "0.0.0.0:9999". */}}
{{- define "loom.portOf" -}}
{{- regexFind "[0-9]+$" . }}
{{- end }}

{{/*
The container's arguments: `run`, then runFlags (an empty value leaves a flag out; the chart's
defaults for reference-namespaces, sharding or leader election and the lease namespace filled in),
then the Metacontroller-named values, then commandArgs, where a later flag wins. More than one
replica shares the parents (16 buckets), unless leader election is asked for, in runFlags or in
Metacontroller's way, in commandArgs.
*/}}
{{- define "loom.args" -}}
{{- $namespace := include "loom.namespace" . }}
{{- $flags := deepCopy .Values.runFlags }}
{{- $leader := or (eq (toString (get $flags "leader-election")) "true") (has "--leader-election" .Values.commandArgs) (has "--leader-election=true" .Values.commandArgs) }}
{{- if gt (int .Values.replicas) 1 }}
{{- if $leader }}{{- $_ := set $flags "leader-election" "true" }}
{{- else if eq (toString (get $flags "shards")) "" }}{{- $_ := set $flags "shards" "16" }}
{{- else if eq (toString (get $flags "shards")) "0" }}
{{- fail "replicas > 1 with runFlags.shards \"0\" would run every controller on every replica: leave shards empty (16) or turn on leader election" }}
{{- end }}
{{- end }}
{{- if not (get $flags "leader-election-namespace") }}{{- $_ := set $flags "leader-election-namespace" $namespace }}{{- end }}
{{- $reference := toString (get $flags "reference-namespaces") }}
{{- if eq $reference "" }}{{- $_ := set $flags "reference-namespaces" $namespace }}{{- end }}
{{- $_ := set $flags "health-probe-bind-address" (printf ":%v" .Values.probes.port) }}
{{- $_ := set $flags "discovery-interval" .Values.discoveryInterval }}
{{- $_ := set $flags "cache-flush-interval" .Values.cacheFlushInterval }}
{{- $zap := dict "logLevel" "zap-log-level" "devel" "zap-devel" "encoder" "zap-encoder" "stacktraceLevel" "zap-stacktrace-level" "timeEncoding" "zap-time-encoding" }}
{{- range $key, $flag := $zap }}
{{- if hasKey $.Values.zap $key }}{{- $_ := set $flags $flag (get $.Values.zap $key) }}{{- end }}
{{- end }}
- run
{{- range $name, $value := $flags }}
{{- if ne (toString $value) "" }}
- {{ printf "--%s=%v" $name $value | quote }}
{{- end }}
{{- end }}
{{- range .Values.commandArgs }}
- {{ . | quote }}
{{- end }}
{{- end }}

{{/*
The container's resources: `resources`, with a memory limit sized for loom and its evaluator processes
when none is given (`memory.hostMiB` + jsonata-processes × (2 × jsonata-memory-limit + `memory.evaluatorOverheadMiB`),
in MiB). `null`
resources stay empty.
*/}}
{{- define "loom.resources" -}}
{{- if kindIs "invalid" .Values.resources }}{}
{{- else }}
{{- $resources := deepCopy .Values.resources }}
{{- $limits := get $resources "limits" | default dict }}
{{- if not (get $limits "memory") }}
{{- $processes := int (get .Values.runFlags "jsonata-processes" | default "2") }}
{{- $heap := int (get .Values.runFlags "jsonata-memory-limit" | default "256") }}
{{- $_ := set $limits "memory" (printf "%dMi" (add (int .Values.memory.hostMiB) (mul $processes (add (mul 2 $heap) (int .Values.memory.evaluatorOverheadMiB))))) }}
{{- $_ := set $resources "limits" $limits }}
{{- end }}
{{- toYaml $resources }}
{{- end }}
{{- end }}
