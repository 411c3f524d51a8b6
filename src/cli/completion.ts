/**
 * Shell completion scripts (`queenctl completion bash|zsh|fish|powershell`), generated from the command tree oclif
 * loaded, so every command, alias and flag of this build completes. The tree is written into the script:
 * completing never runs queenctl, which keeps it instant.
 */

/** One command as the scripts need it: its words (`queue configure`) and its long flags. */
export interface CompletionCommand {
  words: string[]
  flags: string[]
}

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const
export type Shell = (typeof SHELLS)[number]

/** What may follow each command path: sub-words at a topic, flags at a command. */
function completionTable(commands: readonly CompletionCommand[]): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>()
  const add = (path: string, word: string) => {
    const entry = table.get(path) ?? new Set<string>()
    entry.add(word)
    table.set(path, entry)
  }
  for (const command of commands) {
    command.words.forEach((word, index) => add(command.words.slice(0, index).join(' '), word))
    for (const flag of command.flags) add(command.words.join(' '), `--${flag}`)
  }
  return table
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`

/** The bash function: the words typed so far (flags and their values skipped) select the candidates. */
export function bashScript(bin: string, commands: readonly CompletionCommand[]): string {
  const cases = [...completionTable(commands)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, words]) => `    ${quote(path)}) opts=${quote([...words].sort().join(' '))} ;;`)
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, '_')}_complete`
  return `# ${bin} completion for bash: add to ~/.bashrc
#   source <(${bin} completion bash)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" word i opts=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$word" in -*) continue ;; esac
    local candidate="\${cmdpath:+$cmdpath }$word"
    case "$candidate" in
${[...completionTable(commands).keys()].map((path) => `      ${quote(path)}) cmdpath="$candidate" ;;`).join('\n')}
    esac
  done
  case "$cmdpath" in
${cases.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F ${fn} ${bin}
`
}

/** zsh runs the bash function through bashcompinit. */
export function zshScript(bin: string, commands: readonly CompletionCommand[]): string {
  return `# ${bin} completion for zsh: add to ~/.zshrc
#   source <(${bin} completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(bin, commands)
  .split('\n')
  .filter((line) => !line.startsWith('#'))
  .join('\n')}`
}

/** fish: one `complete` line per candidate, conditioned on the words already given. */
export function fishScript(bin: string, commands: readonly CompletionCommand[]): string {
  const lines = [`# ${bin} completion for fish: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish`]
  lines.push(
    `function __${bin}_path`,
    `  set -l words (commandline -opc)`,
    `  set -e words[1]`,
    `  string join ' ' (string match -v -- '-*' $words)`,
    `end`,
  )
  for (const [path, words] of [...completionTable(commands)].sort(([a], [b]) => a.localeCompare(b))) {
    const condition = `test (__${bin}_path) = ${quote(path)}`
    const plain = [...words].filter((word) => !word.startsWith('--')).sort()
    const flags = [...words].filter((word) => word.startsWith('--')).sort()
    if (plain.length > 0) lines.push(`complete -c ${bin} -f -n ${quote(condition)} -a ${quote(plain.join(' '))}`)
    for (const flag of flags) lines.push(`complete -c ${bin} -n ${quote(condition)} -l ${flag.slice(2)}`)
  }
  return `${lines.join('\n')}\n`
}

const psQuote = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * PowerShell: a native argument completer holding the same table; the words before the cursor (flags skipped) select
 * the candidates, as in bash.
 */
export function powershellScript(bin: string, commands: readonly CompletionCommand[]): string {
  const entries = [...completionTable(commands)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, words]) => `    ${psQuote(path)} = @(${[...words].sort().map(psQuote).join(', ')})`)
  return `# ${bin} completion for PowerShell: add to $PROFILE
#   ${bin} completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName ${psQuote(bin)} -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $table = @{
${entries.join('\n')}
  }
  $path = ''
  foreach ($element in ($commandAst.CommandElements | Select-Object -Skip 1)) {
    if ($element.Extent.EndOffset -ge $cursorPosition) { break }
    $word = $element.ToString()
    if ($word.StartsWith('-')) { continue }
    $candidate = if ($path) { "$path $word" } else { $word }
    if ($table.ContainsKey($candidate)) { $path = $candidate }
  }
  $table[$path] | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
    $kind = if ($_.StartsWith('-')) { 'ParameterName' } else { 'ParameterValue' }
    [System.Management.Automation.CompletionResult]::new($_, $_, $kind, $_)
  }
}
`
}
