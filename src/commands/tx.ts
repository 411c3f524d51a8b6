import { Flags } from '@oclif/core'
import { UserError } from '../cli/errors.js'
import { HttpCommand } from '../cli/http-command.js'
import { commitTransaction, readTransaction, type TransactionResult } from '../cli/transaction.js'

export default class Tx extends HttpCommand {
  static override textOnPipe = true
  static override summary = 'Run an atomic transaction of pushes and acks'
  static override description =
    "Reads one JSON document {operations: [...], requiredLeases: [...]} from -f FILE (or - for stdin) and sends it unchanged to POST /api/v1/transaction: every operation (type push with items, or type ack) applies or none does, and each lease of requiredLeases must still be live when it commits. Prints transaction committed, or the per-operation results under -o json (text on stdout otherwise, under a pipe too). A failed transaction exits 2 with the broker's message; transactions are never retried."

  static override examples = [
    '<%= config.bin %> tx --file step.json',
    'echo \'{"operations":[{"type":"push","items":[{"queue":"invoices","payload":{"order":42}}]}]}\' | <%= config.bin %> tx --file -',
    '<%= config.bin %> tx --file step.json --output json',
    '<%= config.bin %> tx --file step.json --dry-run',
  ]

  static override flags = {
    file: Flags.string({
      char: 'f',
      description: 'JSON file with {operations, requiredLeases} (- for stdin)',
      required: true,
    }),
    'dry-run': Flags.boolean({
      description: 'read and check the document, print how many operations and leases it holds, send nothing',
      default: false,
    }),
  }

  async run(): Promise<TransactionResult | { dryRun: true; operations: number; requiredLeases: number }> {
    const { flags } = await this.parse(Tx)
    const out = this.output(flags)
    const document = await readTransaction(flags.file, process.stdin)
    if (flags['dry-run']) {
      const operations = Array.isArray(document.operations) ? document.operations.length : 0
      const leases = Array.isArray(document.requiredLeases) ? document.requiredLeases.length : 0
      if (operations === 0)
        throw new UserError(`${flags.file === '-' ? 'stdin' : flags.file}: the transaction has no operations`)
      const plan = { dryRun: true as const, operations, requiredLeases: leases }
      if (out.tabular) out.write(`[dry-run] ${operations} operations, ${leases} required leases\n`)
      else out.detail({}, plan)
      return plan
    }
    const client = await this.httpClient(flags)
    const result = await commitTransaction(client, document)
    if (out.tabular) out.write('transaction committed\n')
    else out.detail({}, result)
    return result
  }
}
