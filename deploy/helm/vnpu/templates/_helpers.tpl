{{- define "vnpu.validate" -}}
{{- if not (has .Values.mode (list "hami" "mindcluster" "dra")) -}}
{{- fail (printf "values.yaml: mode = %s: must be hami, mindcluster or dra" .Values.mode) -}}
{{- end -}}
{{- range .Values.metrics.compat -}}
{{- if not (has . (list "hami" "npu-exporter")) -}}
{{- fail (printf "values.yaml: metrics.compat = %s: must be hami or npu-exporter" .) -}}
{{- end -}}
{{- end -}}
{{- if hasPrefix (trimSuffix "/" .Values.limiter.hostDir) (trimSuffix "/" .Values.hookPath) -}}
{{- fail (printf "values.yaml: hookPath = %s: inside limiter.hostDir, which every soft-sliced container sees" .Values.hookPath) -}}
{{- end -}}
{{- end -}}

{{/* Object name: what the plain manifests always used. */}}
{{- define "vnpu.name" -}}
{{- if eq .Values.mode "dra" -}}vnpu-dra-kubeletplugin{{- else -}}vnpu-device-plugin{{- end -}}
{{- end -}}

{{- define "vnpu.labels" -}}
app.kubernetes.io/name: vnpu
app.kubernetes.io/component: {{ include "vnpu.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "vnpu.selector" -}}
app.kubernetes.io/component: {{ include "vnpu.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Whether the device-plugin modes serve /metrics and the probes. */}}
{{- define "vnpu.metricsOn" -}}
{{- if ne (int .Values.metrics.port) 0 -}}true{{- end -}}
{{- end -}}

{{/* The limiter is installed and mounted where vnpu soft-slices containers: HAMi mode (the pod
annotation huawei.com/vnpu-mode: hami-core can ask for it on any node). MindCluster's soft sharing is
Huawei's vCANN-RT and the DRA plugin hands out whole NPUs, so neither uses libvnpu.so yet. */}}
{{- define "vnpu.limiterOn" -}}
{{- if or (eq .Values.mode "hami") (and (eq .Values.mode "dra") .Values.dra.softSlicing) -}}true{{- end -}}
{{- end -}}
