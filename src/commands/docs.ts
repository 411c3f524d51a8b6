import { spawn } from 'node:child_process'
import { Flags } from '@oclif/core'
import { UserError } from '../cli/errors.js'
import { OutputCommand } from '../cli/output-command.js'

/** The Queen documentation site: the protocol, the clients and the concepts this broker is compatible with. */
const SITE = 'https://queenmq.com'

/** Short names of --topic; anything else is taken as a path of the site. */
const TOPICS: Record<string, string> = {
  quickstart: '/start/quickstart/',
  concepts: '/use/model/',
  model: '/use/model/',
  clients: '/use/',
  'http-api': '/reference/http/',
  queenctl: '/reference/queenctl/',
  cli: '/reference/queenctl/',
  deploy: '/deploy/',
  operations: '/deploy/operations/',
}

const LINKS: [string, string][] = [
  ['Quickstart', TOPICS.quickstart!],
  ['Data model', TOPICS.model!],
  ['Clients', TOPICS.clients!],
  ['HTTP API', TOPICS['http-api']!],
  ['queenctl', TOPICS.queenctl!],
  ['Self-hosting', TOPICS.deploy!],
  ['Operations', TOPICS.operations!],
]

/** The URL of a --topic value: a short name, or a site path (trailing slash, as the site's pages are directories). */
function topicUrl(topic: string): string {
  const trimmed = topic
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.html$/, '')
  if (trimmed === '') return `${SITE}/`
  return `${SITE}${TOPICS[trimmed.toLowerCase()] ?? `/${trimmed}/`}`
}

export default class Docs extends OutputCommand {
  static override textOnPipe = true
  static override summary = 'Print links to the Queen documentation, or open it in a browser'
  static override description =
    "Prints the main pages of the Queen documentation (queenmq.com: the protocol, clients and concepts this broker is compatible with); this broker's own manual is docs/ of its repository. --topic NAME prints one page (quickstart, concepts, clients, http-api, queenctl, deploy, operations, or any site path); --llms the summaries published for AI agents; --open opens the page in the default browser (xdg-open or open)."

  static override examples = [
    '<%= config.bin %> docs',
    '<%= config.bin %> docs --topic http-api',
    '<%= config.bin %> docs --topic quickstart --open',
  ]

  static override flags = {
    open: Flags.boolean({ description: 'open the page in the default browser', default: false }),
    topic: Flags.string({
      description: 'one page: a short name (quickstart, http-api, ...) or a site path',
      exclusive: ['llms'],
    }),
    llms: Flags.boolean({ description: 'the documentation URLs published for AI agents', default: false }),
  }

  async run(): Promise<{ links: { title: string; url: string }[] }> {
    const { flags } = await this.parse(Docs)
    const out = this.output(flags)
    const links = flags.llms
      ? [
          { title: 'Summary', url: `${SITE}/llms-brief.txt` },
          { title: 'Page index', url: `${SITE}/llms.txt` },
        ]
      : flags.topic !== undefined
        ? [{ title: flags.topic, url: topicUrl(flags.topic) }]
        : LINKS.map(([title, page]) => ({ title, url: `${SITE}${page}` }))
    if (flags.open) {
      await openBrowser(flags.topic === undefined && !flags.llms ? `${SITE}/` : links[0]!.url)
      return { links }
    }
    if (out.tabular) {
      if (flags.topic !== undefined) out.write(`${links[0]!.url}\n`)
      else for (const link of links) out.write(`${link.title.padEnd(22)} ${link.url}\n`)
    } else out.list(links, [])
    return { links }
  }
}

function openBrowser(url: string): Promise<void> {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  return new Promise((resolve, reject) => {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true })
    child.on('error', () =>
      reject(new UserError(`cannot open a browser here (${command} is missing)`, { hint: `open ${url} yourself` })),
    )
    child.on('spawn', () => {
      child.unref()
      resolve()
    })
  })
}
