{{/* The chart's name, and the release's full name (the objects' names): the release name where it holds the chart's. */}}
{{- define "csg.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "csg.fullname" -}}
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

{{/* The chart's name and the release: what tells this release's objects from another's. */}}
{{- define "csg.releaseLabels" -}}
app.kubernetes.io/name: {{ include "csg.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* What selects the gateway's pods: the kustomize base's two labels, and the release. */}}
{{- define "csg.selectorLabels" -}}
{{ include "csg.releaseLabels" . }}
app.kubernetes.io/component: gateway
{{- end }}

{{- define "csg.chartLabels" -}}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "csg.labels" -}}
{{ include "csg.selectorLabels" . }}
{{ include "csg.chartLabels" . }}
{{- end }}

{{- define "csg.secretName" -}}
{{- default (include "csg.fullname" .) .Values.secret.name }}
{{- end }}

{{/* Where the gateway's Secret is mounted, and where another Secret holding Redis' URL or password is. */}}
{{- define "csg.secretsPath" -}}/etc/company-search/secrets{{- end }}
{{- define "csg.redisSecretsPath" -}}/etc/company-search/redis{{- end }}

{{/* The Secret holding a Redis value ({key, secretName}): its own, or the gateway's. */}}
{{- define "csg.redisSecretOf" -}}
{{- default (include "csg.secretName" .root) .value.secretName }}
{{- end }}

{{/* The settings as the ConfigMap holds them: the plain ones, those the chart's values make, and each secret's file. */}}
{{- define "csg.configData" -}}
{{- $data := dict }}
{{- range $name, $value := .Values.settings }}
{{- $_ := set $data $name (toString $value) }}
{{- end }}
{{- $_ := set $data "PORT" (toString .Values.ports.http) }}
{{- $_ := set $data "METRICS_PORT" (toString .Values.ports.metrics) }}
{{- $_ := set $data "SHUTDOWN_DRAIN_DELAY_MS" (toString (mul .Values.drain.delaySeconds 1000)) }}
{{- $_ := set $data "NODE_OPTIONS" (printf "--max-old-space-size=%v" .Values.heap.maxOldSpaceMiB) }}
{{- range $setting, $key := .Values.secret.files }}
{{- $_ := set $data (printf "%s_FILE" $setting) (printf "%s/%s" (include "csg.secretsPath" $) $key) }}
{{- end }}
{{- $root := . }}
{{- range $setting, $value := dict "REDIS_URL" .Values.redis.url "REDIS_SENTINEL_PASSWORD" .Values.redis.sentinelPassword }}
{{- if $value.key }}
{{- $own := eq (include "csg.redisSecretOf" (dict "root" $root "value" $value)) (include "csg.secretName" $root) }}
{{- $_ := set $data (printf "%s_FILE" $setting) (printf "%s/%s" (ternary (include "csg.secretsPath" $root) (include "csg.redisSecretsPath" $root) $own) $value.key) }}
{{- end }}
{{- end }}
{{- toYaml $data }}
{{- end }}
