import { Flags } from '@oclif/core'
import { Listr } from 'listr2'
import pg from 'pg'
import { BROKER_SCHEMA } from '../../broker/db/broker-schema.js'
import { BaseCommand } from '../../cli/base-command.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { resolvePgConnection } from '../../cli/pg-connection.js'
import {
  applySchema,
  loadSchemaFiles,
  requiredSchemaVersion,
  type SchemaFileStatus,
} from '../../platform/postgres/schema-apply.js'
import { readServerFacts, serverVersionProblem } from '../../platform/postgres/server-version.js'

/** The typed result printed with --json. */
export interface SchemaApplyOutput {
  version: number
  dryRun: boolean
  files: { name: string; status: SchemaFileStatus; ms: number }[]
  lockWaitMs: number
}

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
    const output: SchemaApplyOutput = {
      version: requiredSchemaVersion(loadSchemaFiles(BROKER_SCHEMA)),
      dryRun: flags['dry-run'],
      files: [],
      lockWaitMs: 0,
    }
    const client = new pg.Client({ ...connection, application_name: 'queenctl schema apply' })
    const json = this.jsonEnabled()

    // The same applySchema as the broker's boot (lock, ledger, files, verify); the hooks only report.
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
            const facts = await readServerFacts(client)
            const tooOld = serverVersionProblem(facts)
            if (tooOld) throw new UserError(tooOld, { exitCode: EXIT.server })
            task.title = `Connect (PostgreSQL ${facts.version})`
          },
        },
        {
          title: flags['dry-run'] ? 'Plan' : 'Apply',
          rendererOptions: { persistentOutput: true },
          task: async (_ctx, task) => {
            const result = await applySchema(client, BROKER_SCHEMA, {
              dryRun: flags['dry-run'],
              lockTimeoutMs: flags['lock-timeout'] * 1000,
              hooks: {
                onLockWait: (holder) => {
                  task.output = `waiting for the schema lock held by ${holder ?? 'another session'}`
                },
                onLedger: (recorded) => {
                  task.output = `ledger: ${recorded} file(s) recorded`
                },
                onPlanned: (file, status) => {
                  if (!flags['show-sql'] || status === 'unchanged') return
                  if (json) task.output = file.sql
                  else process.stderr.write(`-- ${file.name}\n${file.sql}\n`)
                },
                onFile: (name, status) => {
                  task.output = `${name}: ${status}`
                },
              },
            }).catch((error: unknown) => {
              if ((error as { code?: string }).code === '55P03') {
                throw new UserError(`schema lock not obtained within ${flags['lock-timeout']} s`, {
                  exitCode: EXIT.server,
                  cause: error,
                })
              }
              throw error
            })
            output.files = result.files
            output.lockWaitMs = result.lockWaitMs
            if (result.missing.length > 0) {
              throw new UserError(`schema incomplete after apply: missing ${result.missing.join(', ')}`, {
                exitCode: EXIT.server,
              })
            }
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
