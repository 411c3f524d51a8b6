/**
 * podman for the deployment tier, through scripts/podman.sh (this project's storage and engine settings):
 * the image built once per content of its build context and shared by every test file of a run (and by
 * later runs while the sources do not change), and containers that the leak check tracks.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { REPO_ROOT } from '../../support/cli-harness.js'
import { trackResource } from '../../support/resources.js'

const execFileAsync = promisify(execFile)
const PODMAN = path.join(REPO_ROOT, 'scripts', 'podman.sh')
const PODMAN_DIR = process.env.QUEENCTL_PODMAN_DIR ?? '/tmp/queenctl-podman'
const BASE_IMAGE = 'localhost/node:20-bookworm-slim'
const IMAGE_REPOSITORY = 'localhost/queen'
/** The host's CA bundle, passed to the build's npm ci where TLS goes through an intercepting proxy. */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'

/** What a podman command printed and how it ended. */
export interface PodmanResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs `podman args...`; throws with its output when it fails, unless `allowFailure`. podman's complaints
 * about systemd (health-check timers need it; the checks still run on demand) are left out of stderr.
 */
export async function podman(
  args: string[],
  options: { allowFailure?: boolean; timeoutMs?: number } = {},
): Promise<PodmanResult> {
  let result: PodmanResult
  try {
    const { stdout, stderr } = await execFileAsync(PODMAN, args, {
      timeout: options.timeoutMs ?? 60_000,
      maxBuffer: 64 * 1024 * 1024,
    })
    result = { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string }
    result = {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? String(error),
    }
  }
  result.stderr = result.stderr
    .split('\n')
    .filter((line) => !line.includes('systemd'))
    .join('\n')
  if (result.code !== 0 && !options.allowFailure) {
    throw new Error(`podman ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`)
  }
  return result
}

/**
 * The files the image is built from: the Dockerfile, the .dockerignore and what that lets through (it is
 * an allow-list: `*` then `!path` lines), hashed by path and content.
 */
async function contextHash(): Promise<string> {
  const ignore = await readFile(path.join(REPO_ROOT, '.dockerignore'), 'utf8')
  const allowed = ignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1).replace(/\/$/, ''))
  const files: string[] = ['Dockerfile', '.dockerignore']
  for (const entry of allowed) {
    const full = path.join(REPO_ROOT, entry)
    if ((await stat(full)).isDirectory()) {
      for (const item of await readdir(full, { recursive: true, withFileTypes: true })) {
        if (item.isFile()) files.push(path.relative(REPO_ROOT, path.join(item.parentPath, item.name)))
      }
    } else {
      files.push(entry)
    }
  }
  const hash = createHash('sha256')
  for (const file of files.sort()) {
    hash
      .update(file)
      .update('\0')
      .update(await readFile(path.join(REPO_ROOT, file)))
  }
  return hash.digest('hex').slice(0, 16)
}

async function imageExists(image: string): Promise<boolean> {
  return (await podman(['image', 'exists', image], { allowFailure: true })).code === 0
}

/** Holds a lock directory while `work` runs; a lock whose owner is gone is taken over. */
async function withBuildLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = path.join(PODMAN_DIR, 'queen-image-build.lock')
  await mkdir(PODMAN_DIR, { recursive: true })
  for (;;) {
    try {
      await mkdir(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number.parseInt(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => ''), 10)
      if (Number.isInteger(owner) && !existsSync(`/proc/${owner}`)) await rm(lock, { recursive: true, force: true })
      else await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  await writeFile(path.join(lock, 'pid'), String(process.pid))
  try {
    return await work()
  } finally {
    await rm(lock, { recursive: true, force: true })
  }
}

/**
 * The image of the current sources (`localhost/queen:test-<hash of the build context>`), built with the
 * repository's Dockerfile when no such image exists: one build per change of sources, shared by the test
 * files of a run (one builds, the others wait on the lock). The base image is made first when absent
 * (scripts/node-base-image.sh). Older test images are removed after a build.
 */
export async function ensureImage(): Promise<string> {
  const image = `${IMAGE_REPOSITORY}:test-${await contextHash()}`
  if (await imageExists(image)) return image
  return withBuildLock(async () => {
    if (await imageExists(image)) return image
    if (!(await imageExists(BASE_IMAGE))) {
      await execFileAsync(path.join(REPO_ROOT, 'scripts', 'node-base-image.sh'), [], { timeout: 600_000 })
    }
    const secret = existsSync(CA_BUNDLE) ? ['--secret', `id=ca,src=${CA_BUNDLE}`] : []
    await podman(['build', '--pull=never', '--network=host', '--format', 'docker', ...secret, '-t', image, REPO_ROOT], {
      timeoutMs: 900_000,
    })
    const listed = await podman(['images', '--format', '{{.Repository}}:{{.Tag}}', IMAGE_REPOSITORY])
    for (const old of listed.stdout.split('\n')) {
      if (old.startsWith(`${IMAGE_REPOSITORY}:test-`) && old !== image)
        await podman(['rmi', old], { allowFailure: true })
    }
    // Intermediate images of earlier builds: a day's worth is kept as the build cache (npm ci's layer).
    await podman(['image', 'prune', '--force', '--filter', 'until=24h'], { allowFailure: true })
    return image
  })
}

let counter = 0

/** A name unique to this process, for containers and volumes. */
export function uniqueName(kind: string): string {
  return `queenctl-test-${kind}-${process.pid}-${++counter}`
}

/** A named volume, removed by `remove()`. */
export interface Volume {
  name: string
  remove(): Promise<void>
}

export async function createVolume(): Promise<Volume> {
  const name = uniqueName('volume')
  await podman(['volume', 'create', name])
  const untrack = trackResource(`podman volume ${name}`)
  return {
    name,
    async remove() {
      await podman(['volume', 'rm', '--force', name], { allowFailure: true })
      untrack()
    },
  }
}

/** A container started with `podman run -d`. */
export interface Container {
  name: string
  logs(): Promise<string>
  /** Waits until the logs match `pattern`; fails with the logs after `timeoutMs` or when the container exits. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  exec(args: string[], options?: { env?: Record<string, string> }): Promise<PodmanResult>
  /** `{{.State.Status}} {{.State.ExitCode}}` as a pair. */
  state(): Promise<{ status: string; exitCode: number }>
  /** `podman rm --force` (idempotent); call it in `finally`. */
  remove(): Promise<void>
}

/**
 * `podman run -d --network=host` of `image` with `options.flags` (e.g. --read-only, -v, -e) and
 * `options.args` after the image (the command, default the image's CMD).
 */
export async function runContainer(image: string, options: { flags?: string[]; args?: string[] }): Promise<Container> {
  const name = uniqueName('container')
  await podman([
    'run',
    '-d',
    '--name',
    name,
    '--network=host',
    ...(options.flags ?? []),
    image,
    ...(options.args ?? []),
  ])
  const untrack = trackResource(`podman container ${name}`)
  const container: Container = {
    name,
    async logs() {
      const result = await podman(['logs', name], { allowFailure: true })
      return result.stdout + result.stderr
    },
    async waitForLog(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const logs = await container.logs()
        const match = logs.match(pattern)
        if (match) return match
        const { status } = await container.state()
        if (status !== 'running' || Date.now() > deadline) {
          throw new Error(`container ${name} (${status}) never logged ${String(pattern)}:\n${logs}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    },
    exec(args, execOptions = {}) {
      const env = Object.entries(execOptions.env ?? {}).flatMap(([key, value]) => ['--env', `${key}=${value}`])
      return podman(['exec', ...env, name, ...args], { allowFailure: true })
    },
    async state() {
      const result = await podman(['inspect', name, '--format', '{{.State.Status}} {{.State.ExitCode}}'])
      const [status = '', exitCode = ''] = result.stdout.trim().split(' ')
      return { status, exitCode: Number(exitCode) }
    },
    async remove() {
      await podman(['rm', '--force', '--volumes', name], { allowFailure: true })
      untrack()
    },
  }
  return container
}

/** `podman image inspect` of one image, parsed. */
export async function inspectImage(image: string): Promise<any> {
  const result = await podman(['image', 'inspect', image])
  return (JSON.parse(result.stdout) as any[])[0]
}
