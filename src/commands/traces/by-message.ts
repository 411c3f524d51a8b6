import MessagesTraces from '../messages/traces.js'

/** The same listing as `messages traces`, under the traces topic of docs/cli.md, "Command reference". */
export default class TracesByMessage extends MessagesTraces {
  static override summary = 'List the trace events of one message, oldest first (same as messages traces)'
  static override hiddenAliases = []
  static override examples = [
    '<%= config.bin %> traces by-message 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042',
    '<%= config.bin %> traces by-message 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --output json',
  ]
}
