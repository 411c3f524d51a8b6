import { Flags } from '@oclif/core'
import { Listr } from 'listr2'
import pg from 'pg'
import {
  acquireSchemaLock,
  applySchemaFile,
  ensureSchemaLedger,
  loadSchemaFiles,
  plannedStatus,
  readSchemaLedger,
  releaseSchemaLock,
  requiredSchemaVersion,
  verifySchema,
  type SchemaFileStatus,
} from '../../broker/db/schema-apply.js'
import { BaseCommand } from '../../cli/base-command.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { resolvePgConnection } from '../../cli/pg-connection.js'

/** The typed result printed with --json. */
export interface SchemaApplyOutput {
  version: number
  dryRun: boolean
  files: { name: string; status: SchemaFileStatus; ms: number }[]
  lockWaitMs: number
}

const MINIMUM_SERVER_VERSION = 14

export default class SchemaApply extends BaseCommand {
  static override summary = 'Apply the broker schema to PostgreSQL'
  static override description =
    'Runs the same schema code as `queenctl serve`: the same files, the same advisory lock, the same ledger. Applying twice changes nothing. Connects with --pg-url, else PG_HOST and friends, else the running embedded PostgreSQL of QUEEN_DATA_DIR.'

  static override examples = [
    '<%= config.bin %> schema apply --pg-url postgres://queen:secret@db:5432/queen',
    '<%= config.bin %> schema apply --dry-run',
    '<%= config.bin %> schema apply --show-sql --json',
  ]

  static override enableJsonFlag = true

  static override flags = {
    'dry-run': Flags.boolean({ description: 'list files as new, changed or unchanged; touch nothing', default: false }),
    'show-sql': Flags.boolean({ description: 'print the SQL of the files that would be applied', default: false }),
    'pg-url': Flags.string({ description: 'PostgreSQL URL (default: PG_* variables, then the embedded server)' }),
    'lock-timeout': Flags.integer({ description: 'seconds to wait for the schema lock', default: 60, min: 0 }),
  }

  async run(): Promise<SchemaApplyOutput> {
    const { flags } = await this.parse(SchemaApply)
    const connection = await resolvePgConnection(flags['pg-url'], process.env)
    const files = loadSchemaFiles()
    const output: SchemaApplyOutput = {
      version: requiredSchemaVersion(files),
      dryRun: flags['dry-run'],
      files: [],
      lockWaitMs: 0,
    }
    const client = new pg.Client({ ...connection, application_name: 'queenctl schema apply' })
    const json = this.jsonEnabled()
    let locked = false
    let ledger = new Map<string, string>()

    const tasks = new Listr(
      [
        {
          title: 'Connect',
          task: async (_ctx, task) => {
            try {
              await client.connect()
            } catch (error) {
              throw new UserError(`cannot connect to PostgreSQL: ${(error as Error).message}`, {
                exitCode: EXIT.server,
                cause: error,
              })
            }
            const result = await client.query<{ version: string; num: string }>(
              "SELECT current_setting('server_version') AS version, current_setting('server_version_num') AS num",
            )
            const row = result.rows[0]!
            if (Number(row.num) < MINIMUM_SERVER_VERSION * 10_000) {
              throw new UserError(
                `PostgreSQL ${row.version} is too old; ${MINIMUM_SERVER_VERSION} or newer is required`,
                {
                  exitCode: EXIT.server,
                },
              )
            }
            task.title = `Connect (PostgreSQL ${row.version})`
          },
        },
        {
          title: 'Lock',
          skip: () => flags['dry-run'],
          task: async (_ctx, task) => {
            output.lockWaitMs = await acquireSchemaLock(client, {
              lockTimeoutMs: flags['lock-timeout'] * 1000,
              onWait: (holder) => {
                task.output = `waiting for ${holder ?? 'another session'}`
              },
            }).catch((error: unknown) => {
              throw new UserError(`schema lock not obtained within ${flags['lock-timeout']} s`, {
                exitCode: EXIT.server,
                cause: error,
              })
            })
            locked = true
          },
        },
        {
          title: 'Read ledger',
          task: async (_ctx, task) => {
            if (!flags['dry-run']) await ensureSchemaLedger(client)
            ledger = await readSchemaLedger(client)
            task.title = `Read ledger (${ledger.size} file(s) recorded)`
          },
        },
        ...files.map((file) => ({
          title: `Apply ${file.name}`,
          task: async (_ctx: unknown, task: { title: string; output: string }) => {
            const started = Date.now()
            if (flags['show-sql'] && plannedStatus(file, ledger) !== 'unchanged') {
              if (json) task.output = file.sql
              else process.stderr.write(`-- ${file.name}\n${file.sql}\n`)
            }
            const status = flags['dry-run'] ? plannedStatus(file, ledger) : await applySchemaFile(client, file, ledger)
            const ms = Date.now() - started
            output.files.push({ name: file.name, status, ms })
            task.title = `${file.name}: ${status}`
          },
        })),
        {
          title: 'Verify',
          skip: () => flags['dry-run'],
          task: async () => {
            const missing = await verifySchema(client)
            if (missing.length > 0) {
              throw new UserError(`schema incomplete after apply: missing ${missing.join(', ')}`, {
                exitCode: EXIT.server,
              })
            }
          },
        },
        {
          title: 'Release',
          skip: () => flags['dry-run'],
          task: async () => {
            await releaseSchemaLock(client)
            locked = false
          },
        },
      ],
      {
        renderer: json ? 'silent' : process.stderr.isTTY ? 'default' : 'simple',
        exitOnError: true,
      },
    )

    try {
      await tasks.run()
    } catch (error) {
      if (error instanceof UserError) throw error
      throw new UserError((error as Error).message, { exitCode: EXIT.server, cause: error })
    } finally {
      if (locked) await releaseSchemaLock(client).catch(() => undefined)
      await client.end().catch(() => undefined)
    }
    if (!json) {
      const applied = output.files.filter(
        (file) => file.status === 'applied' || file.status === 'new' || file.status === 'changed',
      )
      this.log(
        flags['dry-run']
          ? `schema version ${output.version}: ${applied.length} file(s) would be applied`
          : `schema version ${output.version}: ${applied.length} file(s) applied, ${output.files.length - applied.length} unchanged`,
      )
    }
    return output
  }
}
