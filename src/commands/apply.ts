import { Flags } from '@oclif/core'
import { readFile } from 'node:fs/promises'
import { Listr } from 'listr2'
import { parseApplyDocuments, type GroupDocument } from '../cli/apply-documents.js'
import { describeTarget, seekGroup } from '../cli/consumer-groups.js'
import { EXIT, UserError } from '../cli/errors.js'
import type { HttpClient } from '../cli/http-client.js'
import { HttpCommand } from '../cli/http-command.js'
import {
  planConfigure,
  postConfigure,
  readStoredQueue,
  renderChanges,
  type ConfigurePlan,
} from '../cli/queue-config.js'

/** One step: a document with what it would do. */
interface Step {
  index: number
  title: string
  /** Lines of the diff (queue) or of the action (group). */
  diff: string
  changes: boolean
  apply: () => Promise<string>
}

/** What the command reports per document. */
interface StepResult {
  document: number
  kind: 'Queue' | 'ConsumerGroup'
  name: string
  changed: boolean
  result?: string
  plan?: ConfigurePlan['body']
}

export default class Apply extends HttpCommand {
  static override textOnPipe = true
  static override summary = 'Apply Queue and ConsumerGroup documents (YAML or JSON) to the broker'
  static override description = `Reads -f FILE (or - for stdin): one or more YAML documents (separated by ---), or JSON, in either form:
The Go queenctl's flat form — kind: Queue (the default) with name, namespace, task and config (queue options by API name; an explicit null restores an option's default): the document is the queue's whole configuration, so options it leaves out go back to their defaults. kind: ConsumerGroup with name, queue and seek-to (end, beginning or a time); without seek-to it is skipped.
The metadata/spec form — kind: Queue, metadata.name, spec: queue options plus namespace and task, merged with the stored options as queue configure does; kind: ConsumerGroup, spec.group (or metadata.name), spec.queue, seekTo and/or subscription (a time: rewrites the group's subscription start).
Every document is checked first, and nothing is applied from a file with an error: an unknown key, kind or queue option names the document (1-based, with its kind and name) and the key. Prints applied <Kind> "<name>" per document on stdout (the results under -o json); an unchanged queue is applied too (exit 0); exit 4 only when every document was skipped. --diff prints what would change; --dry-run prints that and the bodies; neither sends anything, and they exit 4 when nothing would change. Steps are drawn with listr2 on a terminal, one line each otherwise (stderr).`

  static override examples = [
    '<%= config.bin %> apply -f queues.yaml',
    '<%= config.bin %> apply --file queues.yaml --diff',
    'cat queues.yaml | <%= config.bin %> apply -f -',
    "printf 'kind: Queue\\nname: orders\\nconfig:\\n  leaseTime: 60\\n' | <%= config.bin %> apply -f -",
  ]

  static override flags = {
    file: Flags.string({ char: 'f', description: 'documents file, or - for stdin', required: true }),
    'dry-run': Flags.boolean({
      description: 'print the diff and the bodies, send nothing (exit 4 when nothing would change)',
      default: false,
    }),
    diff: Flags.boolean({
      description: 'print only what would change, send nothing (exit 4 when nothing would change)',
      default: false,
    }),
  }

  async run(): Promise<StepResult[]> {
    const { flags } = await this.parse(Apply)
    const out = this.output(flags)
    const source = await readSource(flags.file)
    const documents = parseApplyDocuments(source, flags.file === '-' ? 'stdin' : flags.file)
    if (documents.length === 0) throw new UserError(`${flags.file === '-' ? 'stdin' : flags.file} holds no document`)
    if (documents.every((document) => document.kind === 'Skipped')) {
      for (const document of documents)
        out.note(
          `[skip] ConsumerGroup ${JSON.stringify(document.kind === 'Skipped' ? document.name : '')} has nothing to apply (no seek-to)`,
        )
      this.exit(EXIT.noop)
    }
    const client = await this.httpClient(flags)
    const results: StepResult[] = []
    const steps: Step[] = []
    for (const document of documents) {
      if (document.kind === 'Skipped') {
        out.note(`[skip] ConsumerGroup ${JSON.stringify(document.name)} ${document.reason}`)
        continue
      }
      if (document.kind === 'Queue') {
        const stored = await readStoredQueue(client, document.name)
        const plan = planConfigure(document.name, stored, document, document.replace)
        const changed = !plan.exists || plan.changes.length > 0
        const result: StepResult = {
          document: document.index,
          kind: 'Queue',
          name: document.name,
          changed,
          plan: plan.body,
        }
        results.push(result)
        steps.push({
          index: document.index,
          title: `Queue ${document.name}`,
          diff: [...plan.notes, renderChanges(document.name, plan).trimEnd()].join('\n'),
          changes: changed,
          apply: async () => {
            const answer = await postConfigure(client, plan)
            const ignored = answer.ignored?.length ? ` (ignored legacy option(s) ${answer.ignored.join(', ')})` : ''
            result.result = changed ? `configured${ignored}` : 'unchanged'
            return result.result
          },
        })
      } else {
        const result: StepResult = {
          document: document.index,
          kind: 'ConsumerGroup',
          name: document.group,
          changed: true,
        }
        results.push(result)
        steps.push(groupStep(client, document, result))
      }
    }
    const changing = steps.filter((step) => step.changes)
    if (flags.diff || flags['dry-run']) {
      for (const step of steps) out.note(`document ${step.index}: ${step.diff}`)
      if (flags['dry-run'] && out.format !== 'json') {
        for (const result of results)
          if (result.plan && result.changed) out.write(`${JSON.stringify(result.plan, null, 2)}\n`)
      }
      if (changing.length === 0) this.exit(EXIT.noop)
      return results
    }
    // Only documents with nothing to do at all (skipped ones) make a no-op; an unchanged queue is applied, as the
    // Go queenctl applies it, so a script re-applying its manifests under `set -e` goes on.
    if (results.length === 0) this.exit(EXIT.noop)
    if (changing.length === 0) out.note('nothing to change: every queue already has these options')
    await runSteps(changing, {
      tty: process.stderr.isTTY === true && out.format !== 'json',
      note: (line) => out.note(line),
    })
    if (out.tabular) for (const result of results) out.write(`applied ${result.kind} ${JSON.stringify(result.name)}\n`)
    else out.list(results, [])
    return results
  }
}

function groupStep(client: HttpClient, document: GroupDocument, result: StepResult): Step {
  const actions: string[] = []
  if (document.subscription) actions.push(`subscription start -> ${document.subscription}`)
  if (document.seekTo) actions.push(`seek ${describeTarget(document.seekTo)}`)
  return {
    index: document.index,
    title: `ConsumerGroup ${document.group} on ${document.queue}`,
    diff: `consumer group ${document.group} on queue ${document.queue}: ${actions.join(', ')}`,
    changes: true,
    apply: async () => {
      const done: string[] = []
      if (document.subscription) {
        await client.post(`/api/v1/consumer-groups/${encodeURIComponent(document.group)}/subscription`, {
          subscriptionTimestamp: document.subscription,
        })
        done.push('subscription rewritten')
      }
      if (document.seekTo) {
        const answer = await seekGroup(client, document.group, document.queue, document.seekTo)
        done.push(`sought on ${answer.partitionsUpdated} partition(s)`)
      }
      result.result = done.join(', ')
      return result.result
    },
  }
}

/** listr2 steps on a terminal; one plain line per step otherwise. Stops at the first failure, naming the document. */
async function runSteps(steps: Step[], options: { tty: boolean; note: (line: string) => void }): Promise<void> {
  const named = (step: Step, error: unknown): Error =>
    error instanceof UserError
      ? new UserError(`document ${step.index} (${step.title}): ${error.message}`, {
          exitCode: error.exitCode,
          hint: error.hint,
          code: error.code,
        })
      : (error as Error)
  if (options.tty) {
    const tasks = new Listr(
      steps.map((step) => ({
        title: step.title,
        task: async (_ctx: unknown, task: { title: string }) => {
          try {
            task.title = `${step.title}: ${await step.apply()}`
          } catch (error) {
            throw named(step, error)
          }
        },
      })),
      { renderer: 'default', exitOnError: true, rendererOptions: {} },
    )
    await tasks.run()
    return
  }
  for (const step of steps) {
    try {
      options.note(`${step.title}: ${await step.apply()}`)
    } catch (error) {
      throw named(step, error)
    }
  }
}

async function readSource(file: string): Promise<string> {
  try {
    if (file !== '-') return await readFile(file, 'utf8')
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer))
    return Buffer.concat(chunks).toString('utf8')
  } catch (error) {
    throw new UserError(
      `--file: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
}
