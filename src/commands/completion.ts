import { Args } from '@oclif/core'
import { BaseCommand } from '../cli/base-command.js'
import {
  bashScript,
  fishScript,
  powershellScript,
  SHELLS,
  zshScript,
  type CompletionCommand,
  type Shell,
} from '../cli/completion.js'

export default class Completion extends BaseCommand {
  static override summary = 'Print a shell completion script for bash, zsh, fish or PowerShell'
  static override description =
    'The script completes every command, alias and long flag of this build; it contains the command tree, so completing never runs queenctl. Regenerate it after upgrading.'

  static override examples = [
    'source <(<%= config.bin %> completion bash)',
    'source <(<%= config.bin %> completion zsh)',
    '<%= config.bin %> completion fish > ~/.config/fish/completions/queenctl.fish',
    '<%= config.bin %> completion powershell | Out-String | Invoke-Expression',
  ]

  static override args = {
    shell: Args.string({ description: 'the shell', required: true, options: [...SHELLS] }),
  }

  async run(): Promise<void> {
    const { args } = await this.parse(Completion)
    const commands: CompletionCommand[] = []
    for (const command of this.config.commands) {
      if (command.hidden) continue
      const flags = Object.entries(command.flags ?? {})
        .filter(([, flag]) => !flag.hidden)
        .map(([name]) => name)
      for (const id of [command.id, ...(command.aliases ?? [])]) commands.push({ words: id.split(':'), flags })
    }
    const render = { bash: bashScript, zsh: zshScript, fish: fishScript, powershell: powershellScript }[
      args.shell as Shell
    ]
    process.stdout.write(render(this.config.bin, commands))
  }
}
