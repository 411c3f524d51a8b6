/**
 * Running a rendered StatefulSet's pods as local processes: the container's command and environment as the
 * chart renders them, with what Kubernetes would supply filled in the way a kubelet does: `fieldRef`
 * metadata.name is the pod name, `secretKeyRef` reads the rendered Secret, each volume mount is a directory
 * of the pod's own, and each pod has an address of its own (a loopback address here, bound through HOST),
 * with the pods' DNS names mapped to those addresses in /etc/hosts.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { startCli, type TestProcess } from '../../support/cli-harness.js'
import { only, type KubeObject } from './helm.js'

/** One pod of the StatefulSet, started. */
export interface LocalPod {
  name: string
  /** The pod's address. */
  ip: string
  /** The container port of each named port (http, mesh). */
  ports: Record<string, number>
  process: TestProcess
  /** `http://ip:<port>` of a named container port. */
  url(portName: string): string
  /** Removes the pod's volume directories (after the process has ended). */
  removeVolumes(): Promise<void>
}

/** The value of an environment entry as a kubelet would resolve it for `podName`. */
export function resolveEnv(entry: any, podName: string, secrets: KubeObject[]): string {
  if (entry.value !== undefined) return String(entry.value)
  const field = entry.valueFrom?.fieldRef?.fieldPath
  if (field === 'metadata.name') return podName
  const ref = entry.valueFrom?.secretKeyRef
  if (ref) {
    const secret = secrets.find((candidate) => candidate.metadata.name === ref.name)
    const encoded = secret?.data?.[ref.key] as string | undefined
    if (encoded === undefined) throw new Error(`${entry.name}: the rendering has no Secret ${ref.name} key ${ref.key}`)
    return Buffer.from(encoded, 'base64').toString('utf8')
  }
  throw new Error(`${entry.name}: cannot resolve ${JSON.stringify(entry.valueFrom)} outside a cluster`)
}

/**
 * Starts ordinal `ordinal` of the rendered StatefulSet on address `ip`: the container's `command` must be
 * the image's `queenctl` (this repository's bin/run.js is run instead), its `args` are passed as they are.
 */
export async function startPod(objects: KubeObject[], ordinal: number, ip: string): Promise<LocalPod> {
  const statefulSet = only(objects, 'StatefulSet')
  const spec = statefulSet.spec.template.spec
  const container = spec.containers[0]
  if (JSON.stringify(container.command) !== '["queenctl"]') {
    throw new Error(`the container runs ${JSON.stringify(container.command)}, not queenctl`)
  }
  const name = `${statefulSet.metadata.name}-${ordinal}`
  const secrets = objects.filter((object) => object.kind === 'Secret')

  // Every mount is a directory of this pod's (a volumeClaimTemplate or an emptyDir alike).
  const mounts: { mountPath: string; dir: string }[] = []
  for (const mount of container.volumeMounts as { name: string; mountPath: string }[]) {
    mounts.push({
      mountPath: mount.mountPath,
      dir: await mkdtemp(path.join('/tmp', `queenctl-pod-${name}-${mount.name}-`)),
    })
  }
  const inMount = (value: string) => {
    const mount = mounts.find(({ mountPath }) => value === mountPath || value.startsWith(`${mountPath}/`))
    return mount ? mount.dir + value.slice(mount.mountPath.length) : value
  }

  const env: Record<string, string> = {}
  for (const entry of container.env as any[]) env[entry.name] = inMount(resolveEnv(entry, name, secrets))
  // The pod's own address (Kubernetes gives each pod a network namespace; HOST defaults to 0.0.0.0 there).
  env.HOST = ip
  // The emptyDir at /tmp is where the OS temp directory is, inside the pod.
  env.TMPDIR = inMount('/tmp')

  const ports = Object.fromEntries((container.ports as any[]).map((port) => [port.name, port.containerPort]))
  const process = startCli(container.args as string[], { env })
  return {
    name,
    ip,
    ports,
    process,
    url: (portName) => `http://${ip}:${ports[portName]}`,
    async removeVolumes() {
      for (const { dir } of mounts) await rm(dir, { recursive: true, force: true })
    },
  }
}

const HOSTS = '/etc/hosts'
const MARKER = '# queenctl deploy test'

/** Whether a line was added by a test process that is gone (a run killed before it cleaned up). */
function leftBehind(line: string): boolean {
  const pid = Number(line.slice(line.indexOf(MARKER) + MARKER.length).trim())
  return line.includes(MARKER) && !existsSync(`/proc/${pid}`)
}

/**
 * Adds `address name` lines to /etc/hosts, marked with this process id (and drops lines a killed run left);
 * the returned function removes exactly the lines it added.
 */
export async function addHosts(entries: [address: string, name: string][]): Promise<() => Promise<void>> {
  const marker = `${MARKER} ${process.pid}`
  const kept = (await readFile(HOSTS, 'utf8')).split('\n').filter((line) => !leftBehind(line))
  const lines = entries.map(([address, name]) => `${address} ${name} ${marker}`)
  await writeFile(HOSTS, `${kept.join('\n').replace(/\n*$/, '\n')}${lines.join('\n')}\n`)
  return async () => {
    const current = await readFile(HOSTS, 'utf8')
    await writeFile(
      HOSTS,
      current
        .split('\n')
        .filter((line) => !line.endsWith(marker))
        .join('\n'),
    )
  }
}
