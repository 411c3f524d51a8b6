import { Flags } from '@oclif/core'
import { HttpCommand } from '../cli/http-command.js'
import { commitTransaction, readTransaction, type TransactionResult } from '../cli/transaction.js'

export default class Tx extends HttpCommand {
  static override summary = 'Run an atomic transaction of pushes and acks'
  static override description =
    "Reads one JSON document {operations: [...], requiredLeases: [...]} from -f FILE (or - for stdin) and sends it unchanged to POST /api/v1/transaction: every operation (type push with items, or type ack) applies or none does, and each lease of requiredLeases must still be live when it commits. Prints transaction committed, or the per-operation results under -o json (the default when stdout is piped). A failed transaction exits 2 with the broker's message; transactions are never retried."

  static override examples = [
    '<%= config.bin %> tx --file step.json',
    'echo \'{"operations":[{"type":"push","items":[{"queue":"invoices","payload":{"order":42}}]}]}\' | <%= config.bin %> tx --file -',
    '<%= config.bin %> tx --file step.json --output json',
  ]

  static override flags = {
    file: Flags.string({
      char: 'f',
      description: 'JSON file with {operations, requiredLeases} (- for stdin)',
      required: true,
    }),
  }

  async run(): Promise<TransactionResult> {
    const { flags } = await this.parse(Tx)
    const out = this.output(flags)
    const document = await readTransaction(flags.file, process.stdin)
    const client = await this.httpClient(flags)
    const result = await commitTransaction(client, document)
    if (out.tabular) out.write('transaction committed\n')
    else out.detail({}, result)
    return result
  }
}
