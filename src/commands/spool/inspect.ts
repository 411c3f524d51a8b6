import { Flags } from '@oclif/core'
import { currentHostFacts } from '../../platform/config/resolve-variables.js'
import { defaultSpoolDir } from '../../broker/config/variables.js'
import { inspectSpool, isSpoolDirectory } from '../../broker/spool/spool-inspect.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { OutputCommand } from '../../cli/output-command.js'
import {
  inspectResult,
  partitionColumns,
  problemColumns,
  quarantineColumns,
  recordColumns,
  recordLine,
  segmentColumns,
  type SpoolInspectResult,
} from '../../cli/spool-inspect-view.js'

const DEFAULT_MAX_BODY_BYTES = 33_554_432
const RECORD_HEADROOM_BYTES = 65_536

/** The broker's record bound: QUEEN_MAX_BODY_BYTES + 64 KiB (docs/operations.md, "Spool record format"). */
function maxRecordBytes(env: NodeJS.ProcessEnv): number {
  const configured = Number.parseInt(env.QUEEN_MAX_BODY_BYTES ?? '', 10)
  return (
    (Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_BODY_BYTES) + RECORD_HEADROOM_BYTES
  )
}

export default class SpoolInspect extends OutputCommand {
  static override summary = 'Read a spool directory without modifying it'
  static override description =
    "Lists the segments of a broker's spool (SEGMENT, STATE open|sealed|quarantine, RECORDS, BYTES, OLDEST, NEWEST, REPLAYED = records before the replay progress) and the records awaiting replay per queue and partition. Purely local and read-only: safe on a running broker's directory or a stopped pod's volume. --records N decodes the first N records awaiting replay; --failed adds the quarantine with its reasons; --verify lists every damaged byte range (the broker would quarantine them). An unfinished last record of the .open segment is reported as torn, not as damage. Encrypted payloads show as <encrypted>. With --output ndjson it prints one record per line, {queue, partition, transactionId, traceId, data, _spool}: every record awaiting replay (or the first N), or with --failed only the quarantined records (plus the first N with --records)."

  static override examples = [
    '<%= config.bin %> spool inspect',
    '<%= config.bin %> spool inspect --dir /var/lib/queen/buffers --records 20',
    '<%= config.bin %> spool inspect --queue orders --partition eu --records 5 --output wide',
    '<%= config.bin %> spool inspect --failed --verify',
    '<%= config.bin %> spool inspect --failed --output ndjson > quarantined.ndjson',
  ]

  static override flags = {
    dir: Flags.string({
      description: 'spool directory (default: FILE_BUFFER_DIR, else /var/lib/queen/buffers on Linux)',
      env: 'FILE_BUFFER_DIR',
    }),
    records: Flags.integer({ description: 'decode the first N records awaiting replay', min: 0 }),
    queue: Flags.string({ description: 'only records of this queue' }),
    partition: Flags.string({ description: 'only records of this partition' }),
    failed: Flags.boolean({ description: 'include the quarantined records with their reasons', default: false }),
    verify: Flags.boolean({ description: 'list every damaged byte range and torn tail', default: false }),
  }

  async run(): Promise<SpoolInspectResult> {
    const { flags } = await this.parse(SpoolInspect)
    const out = this.output(flags)
    const dir = flags.dir ?? defaultSpoolDir(currentHostFacts())
    if (!(await isSpoolDirectory(dir))) {
      throw new UserError(`spool directory ${dir} does not exist`, {
        exitCode: EXIT.user,
        hint: 'pass --dir or set FILE_BUFFER_DIR to the directory of the broker',
      })
    }
    const ndjson = out.format === 'ndjson'
    // NDJSON of every record awaiting replay streams them as they are read instead of holding them all.
    const streamAll = ndjson && !flags.failed && flags.records === undefined
    const inspection = await inspectSpool({
      dir,
      maxRecordBytes: maxRecordBytes(process.env),
      queue: flags.queue,
      partition: flags.partition,
      recordLimit: flags.records ?? 0,
      failed: flags.failed,
      onRecord: streamAll ? (record) => out.write(`${JSON.stringify(recordLine(record))}\n`) : undefined,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EACCES' || error.code === 'EPERM') {
        throw new UserError(`cannot read the spool in ${dir}: ${error.code}`, {
          exitCode: EXIT.user,
          hint: "run as the broker's user (the directory is mode 0700)",
        })
      }
      throw error
    })
    const result = inspectResult(inspection)

    const { owner, totals } = inspection
    if (owner) {
      const where = [owner.pid === null ? undefined : `pid ${owner.pid}`, owner.host ? `on ${owner.host}` : undefined]
      const stale = owner.running === false ? ', not running: a stale lock the next broker takes over' : ''
      out.note(
        `spool ${dir}: locked by ${owner.serverId ?? 'an unknown broker'} (${where.filter(Boolean).join(' ')}${stale})`,
      )
    }
    for (const problem of inspection.problems.filter((candidate) => candidate.kind === 'torn')) {
      out.note(`${problem.segment}: ${problem.reason}`)
    }
    const damaged = inspection.problems.filter((problem) => problem.kind === 'damaged')
    if (damaged.length > 0 && !flags.verify) {
      out.warn(`${damaged.length} damaged byte range(s); run with --verify to list them`)
    }

    if (ndjson) {
      if (!streamAll) {
        for (const record of result.records) out.write(`${JSON.stringify(record)}\n`)
      }
      for (const entry of result.quarantined) {
        if (entry.record) out.write(`${JSON.stringify(entry.record)}\n`)
      }
      const bytesOnly = result.quarantined.filter((entry) => !entry.record).length
      if (bytesOnly > 0) out.note(`${bytesOnly} quarantined damaged byte range(s) hold no record and are not printed`)
      return result
    }
    if (!out.tabular) {
      out.detail({}, result)
      return result
    }

    const now = Date.now()
    const sections: (() => void)[] = []
    if (inspection.segments.length === 0) out.note(`no segments in ${dir}`)
    else sections.push(() => out.table(inspection.segments, segmentColumns(now)))
    if (inspection.partitions.length > 0) sections.push(() => out.table(inspection.partitions, partitionColumns(now)))
    if (flags.records !== undefined) {
      if (result.records.length === 0) out.note('no records awaiting replay match')
      else sections.push(() => out.table(result.records, recordColumns(now)))
    }
    if (flags.failed) {
      if (result.quarantined.length === 0) out.note('no quarantined records match')
      else sections.push(() => out.table(result.quarantined, quarantineColumns(now)))
    }
    if (flags.verify) {
      if (inspection.problems.length === 0) {
        out.note(`verify: every checksum is valid (${totals.segments} file(s))`)
      } else {
        sections.push(() => out.table(inspection.problems, problemColumns()))
      }
    }
    sections.forEach((section, index) => {
      if (index > 0) out.write('\n')
      section()
    })
    return result
  }
}
