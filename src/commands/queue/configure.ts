import { Args, Flags } from '@oclif/core'
import { readFile } from 'node:fs/promises'
import { parse as parseYaml } from 'yaml'
import { confirmAction } from '../../cli/confirm.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import {
  checkOptionsObject,
  optionFlags,
  optionsFromFlags,
  planConfigure,
  postConfigure,
  readStoredQueue,
  renderChanges,
  type ConfigureAnswer,
} from '../../cli/queue-config.js'
import { renderJson } from '../../cli/output.js'

export default class QueueConfigure extends HttpCommand {
  static override summary = 'Create a queue or change its options (read-merge-write)'
  static override description =
    'POST /api/v1/configure replaces every option, so this command reads the stored options, overlays the flags given (and -f FILE, same keys as the API) and posts the complete set; the diff goes to stderr. A retention period above 0 turns retentionEnabled on unless --no-retention-enabled is given. --replace sends only what was given, everything else at its default (needs --yes or --dry-run). --dry-run prints the diff and the body and sends nothing (exit 4 when nothing would change).'

  static override hiddenAliases = ['q:configure', 'queue:create', 'q:create']

  static override examples = [
    '<%= config.bin %> queue configure orders --lease-time 5m --retry-limit 5',
    '<%= config.bin %> queue configure orders --retention 7d --dry-run',
    '<%= config.bin %> queue configure orders --file orders-options.yaml',
    '<%= config.bin %> queue configure orders --replace --lease-time 60 --yes',
  ]

  static override args = { queue: Args.string({ description: 'queue name', required: true }) }

  static override flags = {
    namespace: Flags.string({ description: 'namespace tag of the queue' }),
    task: Flags.string({ description: 'task tag of the queue' }),
    ...optionFlags(),
    file: Flags.string({ char: 'f', description: 'options file (YAML or JSON, API keys) overlaid before the flags' }),
    replace: Flags.boolean({
      description: 'send exactly what was given, every other option at its default',
      default: false,
    }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<ConfigureAnswer | { dryRun: true; body: unknown; changes: unknown }> {
    const { args, flags } = await this.parse(QueueConfigure)
    const out = this.output(flags)
    const fileOptions = flags.file ? await readOptionsFile(flags.file) : {}
    const asked = {
      namespace: flags.namespace,
      task: flags.task,
      options: { ...fileOptions, ...optionsFromFlags(flags) },
    }
    if (flags.replace && !flags['dry-run']) {
      await confirmAction({
        yes: flags.yes,
        question: `Replace every option of ${args.queue}? Options not given go back to their defaults.`,
        action: `replace the options of ${args.queue}`,
        retry: `queenctl queue configure ${args.queue} --replace ... --yes`,
      })
    }
    const client = await this.httpClient(flags)
    const stored = await readStoredQueue(client, args.queue)
    const plan = planConfigure(args.queue, stored, asked, flags.replace)
    for (const note of plan.notes) out.note(note)
    out.note(renderChanges(args.queue, plan).trimEnd())
    if (flags['dry-run']) {
      if (plan.exists && plan.changes.length === 0) this.exit(EXIT.noop)
      const result = { dryRun: true as const, body: plan.body, changes: plan.changes }
      if (out.format !== 'json') out.write(renderJson(plan.body))
      return result
    }
    const answer = await postConfigure(client, plan)
    if (answer.ignored && answer.ignored.length > 0) {
      out.warn(`the broker ignored legacy option(s) ${answer.ignored.join(', ')}: they are not stored`)
    }
    out.confirm(`configured ${JSON.stringify(args.queue)}`)
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}

/** An options file: YAML or JSON with the API's keys (a top-level `options` key is accepted too). */
async function readOptionsFile(path: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8')
  } catch (error) {
    throw new UserError(
      `--file: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  let parsed: unknown
  try {
    parsed = parseYaml(text)
  } catch (error) {
    throw new UserError(`--file: ${path} is not YAML or JSON: ${(error as Error).message.split('\n')[0]}`)
  }
  const value = parsed !== null && typeof parsed === 'object' && 'options' in parsed ? parsed.options : parsed
  return checkOptionsObject(value, path)
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer))
  return Buffer.concat(chunks).toString('utf8')
}
