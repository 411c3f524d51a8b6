import { Args, Flags } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import { extendLease, type LeaseExtension } from '../../cli/lease.js'

export default class LeaseExtend extends HttpCommand {
  static override textOnPipe = true
  static override summary = 'Extend the lease of popped messages'
  static override description =
    "Extends every live lease row of the lease id (a multi-partition pop is extended in one call) to at least now + --seconds; an expired lease is not revived. Prints renewed <lease> -> <expiresAt> (the broker's answer only under -o json); exit 2 when the lease is unknown or already expired."

  static override examples = [
    '<%= config.bin %> lease extend 0190f3c2-1111-7000-8000-000000000002',
    '<%= config.bin %> lease extend 0190f3c2-1111-7000-8000-000000000002 --seconds 300',
  ]

  static override args = {
    leaseId: Args.string({ description: 'lease id (the leaseId of pop)', required: true, ignoreStdin: true }),
  }

  static override flags = {
    seconds: Flags.integer({ description: 'new lifetime from now, in seconds', default: 60, min: 1, max: 86_400 }),
  }

  async run(): Promise<LeaseExtension> {
    const { args, flags } = await this.parse(LeaseExtend)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const result = await extendLease(client, args.leaseId, flags.seconds)
    if (out.tabular) out.write(`renewed ${result.leaseId} -> ${result.expiresAt ?? '-'}\n`)
    else out.detail({}, result)
    return result
  }
}
