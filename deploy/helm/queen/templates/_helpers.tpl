{{/* Names and labels. */}}
{{- define "queen.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "queen.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "queen.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "queen.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "queen.selectorLabels" -}}
app.kubernetes.io/name: {{ include "queen.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "queen.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "queen.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "queen.meshServiceName" -}}
{{- printf "%s-mesh" (include "queen.fullname" .) -}}
{{- end -}}

{{- define "queen.secretName" -}}
{{- printf "%s-secrets" (include "queen.fullname" .) -}}
{{- end -}}

{{- define "queen.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* 1 to 3 replicas: more fails to render (docs/deploy.md, "Kubernetes with Helm"), whatever the schema check was told. */}}
{{- define "queen.replicas" -}}
{{- $n := int .Values.replicaCount -}}
{{- if or (lt $n 1) (gt $n 3) -}}
{{- fail (printf "replicaCount must be 1, 2 or 3 (got %v): every broker meshes with every other" .Values.replicaCount) -}}
{{- end -}}
{{- $n -}}
{{- end -}}

{{/*
QUEEN_MESH_PEERS: every replica's stable name through the headless Service, itself included; empty with one
replica, which leaves the mesh off.
*/}}
{{- define "queen.meshPeers" -}}
{{- $n := int (include "queen.replicas" .) -}}
{{- if gt $n 1 -}}
{{- $peers := list -}}
{{- range $i := until $n -}}
{{- $peers = append $peers (printf "%s-%d.%s.%s.svc.cluster.local:%d" (include "queen.fullname" $) $i (include "queen.meshServiceName" $) $.Release.Namespace (int $.Values.mesh.port)) -}}
{{- end -}}
{{- join "," $peers -}}
{{- end -}}
{{- end -}}

{{/*
The data of the chart's Secret (key: base64 value), as YAML; empty when every secret comes from an
existingSecret. The generated mesh secret is made once per render (kept in .Values, which every template
shares) so the Secret and the checksum annotation see the same value; across upgrades it is read back from
the Secret in the cluster.
*/}}
{{- define "queen.secretData" -}}
{{- $data := dict -}}
{{- if and .Values.postgres.password (not .Values.postgres.existingSecret) -}}
{{- $_ := set $data .Values.postgres.passwordKey (b64enc .Values.postgres.password) -}}
{{- end -}}
{{- if not .Values.mesh.existingSecret -}}
{{- if .Values.mesh.secret -}}
{{- $_ := set $data .Values.mesh.secretKey (b64enc .Values.mesh.secret) -}}
{{- else -}}
{{- if not (hasKey .Values "generatedMeshSecret") -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "queen.secretName" .) -}}
{{- $kept := "" -}}
{{- if and $existing $existing.data -}}
{{- $kept = index $existing.data .Values.mesh.secretKey | default "" -}}
{{- end -}}
{{- $_ := set .Values "generatedMeshSecret" (default (randAlphaNum 48 | b64enc) $kept) -}}
{{- end -}}
{{- $_ := set $data .Values.mesh.secretKey .Values.generatedMeshSecret -}}
{{- end -}}
{{- end -}}
{{- if and .Values.encryption.key (not .Values.encryption.existingSecret) -}}
{{- $_ := set $data .Values.encryption.keyKey (b64enc .Values.encryption.key) -}}
{{- end -}}
{{- if and .Values.jwt.enabled .Values.jwt.secret (not .Values.jwt.secretRef.name) -}}
{{- $_ := set $data .Values.jwt.secretRef.key (b64enc .Values.jwt.secret) -}}
{{- end -}}
{{- if $data -}}
{{- toYaml $data -}}
{{- end -}}
{{- end -}}

{{/* Pod annotation: changes with the rendered Secret (and secretChecksum), so an upgrade rolls the pods. */}}
{{- define "queen.secretChecksum" -}}
{{- printf "%s\n%s" (include "queen.secretData" .) .Values.secretChecksum | sha256sum -}}
{{- end -}}

{{/* Where the HS256 secret is read from: the user's Secret, or the chart's; empty when there is none. */}}
{{- define "queen.jwtSecretRef" -}}
{{- if .Values.jwt.secretRef.name -}}
name: {{ .Values.jwt.secretRef.name }}
key: {{ .Values.jwt.secretRef.key }}
{{- else if .Values.jwt.secret -}}
name: {{ include "queen.secretName" . }}
key: {{ .Values.jwt.secretRef.key }}
{{- end -}}
{{- end -}}

{{/* Settings the broker would refuse at boot, refused at render instead, naming the value to set. */}}
{{- define "queen.validate" -}}
{{- if .Values.jwt.enabled -}}
{{- $hs := or .Values.jwt.secret .Values.jwt.secretRef.name -}}
{{- $asym := or .Values.jwt.jwksUrl .Values.jwt.publicKeySecret.name -}}
{{- if and (eq .Values.jwt.algorithm "HS256") (not $hs) -}}
{{- fail "jwt.enabled with algorithm HS256 needs jwt.secret or jwt.secretRef.name" -}}
{{- end -}}
{{- if and (has .Values.jwt.algorithm (list "RS256" "EdDSA")) (not $asym) -}}
{{- fail (printf "jwt.enabled with algorithm %s needs jwt.jwksUrl or jwt.publicKeySecret.name" .Values.jwt.algorithm) -}}
{{- end -}}
{{- if and (eq .Values.jwt.algorithm "auto") (not $hs) (not $asym) -}}
{{- fail "jwt.enabled with algorithm auto needs a key: jwt.secret, jwt.secretRef.name, jwt.jwksUrl or jwt.publicKeySecret.name" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.tenancy.claim (not (and .Values.tenancy.header .Values.jwt.enabled)) -}}
{{- fail "tenancy.claim needs tenancy.header and jwt.enabled" -}}
{{- end -}}
{{- end -}}
