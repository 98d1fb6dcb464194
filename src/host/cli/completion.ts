/**
 * `sluice completion bash|zsh`: a shell completion script written from commander's own definitions of the commands
 * and their options, so that it cannot fall behind them. It completes command names, each command's options, and
 * the values of an option with choices (`-o table|wide|json|yaml`); arguments (application ids, stores) are left to
 * the shell's default (files).
 */

import type { Command, Option } from 'commander';
import { InvalidClientRequest } from '../../errors';

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

interface CommandSpec {
  name: string;
  description: string;
  options: string[];
  /** Option flag → its choices. */
  choices: Map<string, readonly string[]>;
}

function flagsOf(option: Option): string[] {
  return [option.short, option.long].filter((flag): flag is string => flag !== undefined);
}

function specOf(command: Command): CommandSpec {
  const options = command.options;
  const choices = new Map<string, readonly string[]>();
  for (const option of options) {
    if (option.argChoices !== undefined) for (const flag of flagsOf(option)) choices.set(flag, option.argChoices);
  }
  return { name: command.name(), description: command.description(), options: [...options.flatMap(flagsOf), '--help'], choices };
}

/** The root's commands (but the help command commander adds), and the root's own options. */
function specs(root: Command): { root: CommandSpec; commands: CommandSpec[] } {
  return { root: specOf(root), commands: root.commands.filter((command) => command.name() !== 'help').map(specOf) };
}

/** A word list for a shell's double-quoted string: only letters, digits and -_|= come from commander here. */
function words(list: readonly string[]): string {
  for (const word of list) {
    if (!/^[\w-]+$/.test(word)) throw new InvalidClientRequest(`completion cannot carry the word '${word}'`);
  }
  return list.join(' ');
}

function bash(root: Command): string {
  const { root: top, commands } = specs(root);
  const name = root.name();
  const optionCases = commands.map((command) => `    ${command.name}) words="${words(command.options)}" ;;`);
  const choiceCases = [top, ...commands].flatMap((command) =>
    [...command.choices].map(([flag, values]) => `    ${command.name}:${flag}) COMPREPLY=($(compgen -W "${words(values)}" -- "$cur")); return ;;`),
  );
  return `# bash completion for ${name}, written by \`${name} completion bash\` from its command definitions.
_${name}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" command="" words="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) command="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  case "\${command:-${name}}:$prev" in
${choiceCases.join('\n')}
  esac
  case "$command" in
    "") words="${words(commands.map((command) => command.name))} ${words(top.options)}" ;;
${optionCases.join('\n')}
  esac
  if [[ -z "$command" || "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
}
complete -o default -o bashdefault -F _${name} ${name}
`;
}

/** A zsh `name:description` item in single quotes. */
function described(name: string, description: string): string {
  const text = description.replace(/\s+/g, ' ').replace(/:/g, '\\:').replace(/'/g, `'\\''`);
  return `'${name}:${text}'`;
}

function zsh(root: Command): string {
  const { root: top, commands } = specs(root);
  const name = root.name();
  const optionCases = commands.map((command) => `    ${command.name}) options=(${words(command.options)}) ;;`);
  const choiceCases = [top, ...commands].flatMap((command) =>
    [...command.choices].map(([flag, values]) => `    ${command.name}:${flag}) compadd -- ${words(values)}; return ;;`),
  );
  return `#compdef ${name}
# zsh completion for ${name}, written by \`${name} completion zsh\` from its command definitions.
_${name}() {
  local command="" prev="\${words[CURRENT-1]}" i
  local -a commands options
  for ((i = 2; i < CURRENT; i++)); do
    if [[ "\${words[i]}" != -* ]]; then command="\${words[i]}"; break; fi
  done
  case "\${command:-${name}}:$prev" in
${choiceCases.join('\n')}
  esac
  if [[ -z "$command" ]]; then
    commands=(
${commands.map((command) => `      ${described(command.name, command.description)}`).join('\n')}
    )
    if [[ "$PREFIX" == -* ]]; then compadd -- ${words(top.options)}; else _describe 'command' commands; fi
    return
  fi
  case "$command" in
${optionCases.join('\n')}
  esac
  if [[ "$PREFIX" == -* ]]; then compadd -- $options; else _files; fi
}
if [[ "\${funcstack[1]}" == "_${name}" ]]; then _${name} "$@"; else compdef _${name} ${name}; fi
`;
}

/** The completion script of a shell for the program `root`. */
export function completionScript(root: Command, shell: string): string {
  if (shell === 'bash') return bash(root);
  if (shell === 'zsh') return zsh(root);
  throw new InvalidClientRequest(`no completion for the shell '${shell}'; shells: ${SHELLS.join(', ')}`);
}
