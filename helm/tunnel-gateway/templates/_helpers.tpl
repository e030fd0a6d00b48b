{{/*
The chart name, or nameOverride; used in the app.kubernetes.io/name label.
*/}}
{{- define "tunnel-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the release's resources, truncated to 63 characters (the limit of DNS labels): fullnameOverride,
or "<release>-<name>", or the release name alone when it already contains the chart name.
*/}}
{{- define "tunnel-gateway.fullname" -}}
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

{{/*
The chart's name and version, for the helm.sh/chart label.
*/}}
{{- define "tunnel-gateway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every resource of the release.
*/}}
{{- define "tunnel-gateway.labels" -}}
helm.sh/chart: {{ include "tunnel-gateway.chart" . }}
{{ include "tunnel-gateway.selectorLabels" . }}
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Labels that select the release's pods; templates add app.kubernetes.io/component (gateway or redis).
*/}}
{{- define "tunnel-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tunnel-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The name of the ServiceAccount the pods run as.
*/}}
{{- define "tunnel-gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tunnel-gateway.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}
