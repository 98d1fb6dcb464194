/** `sluice completion bash|zsh`: scripts written from the command definitions, which their shells accept and run. */

import { spawnSync } from 'node:child_process';
import { program } from '../cli';
import { completionScript } from './completion';

const cli = program();
const commands = cli.commands.map((command) => command.name()).filter((name) => name !== 'help');
const queryOptions = cli.commands.find((command) => command.name() === 'query')!.options.map((option) => option.long!);

/** What bash completes for the words typed so far (the last one being completed). */
function bashCompletes(typed: string[]): string[] {
  const script = `${completionScript(cli, 'bash')}
COMP_WORDS=(${typed.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${typed.length - 1}; _sluice; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const run = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter((line) => line !== '');
}

describe.each(['bash', 'zsh'])('%s', (shell) => {
  it('names every command and every option of a command', () => {
    const script = completionScript(cli, shell);
    for (const name of [...commands, 'completion']) expect(script).toContain(name);
    expect(queryOptions).toEqual(expect.arrayContaining(['--all', '--type', '--set', '--output', '--no-headers']));
    for (const option of queryOptions) expect(script).toContain(option);
  });
});

it('bash accepts the script, and it completes commands, a command’s options and an option’s choices', () => {
  expect(spawnSync('bash', ['-n'], { input: completionScript(cli, 'bash'), encoding: 'utf8' }).status).toBe(0);
  expect(bashCompletes(['sluice', ''])).toEqual(expect.arrayContaining(commands));
  expect(bashCompletes(['sluice', 'qu'])).toEqual(['query']);
  expect(bashCompletes(['sluice', 'query', 'word-count', '--a'])).toEqual(['--all']);
  expect(bashCompletes(['sluice', 'events', '-o', ''])).toEqual(['table', 'wide', 'json', 'yaml']);
  expect(bashCompletes(['sluice', 'tim'])).toEqual(['timeline']);
  expect(bashCompletes(['sluice', 'timeline', 'word-count', '--f'])).toEqual(['--follow']);
});

const zsh = spawnSync('sh', ['-c', 'command -v zsh'], { encoding: 'utf8' }).stdout.trim();
(zsh === '' ? it.skip : it)('zsh accepts the script', () => {
  expect(spawnSync(zsh, ['-n'], { input: completionScript(cli, 'zsh'), encoding: 'utf8' }).status).toBe(0);
});

it('refuses a shell it has no script for', () => {
  expect(() => completionScript(cli, 'fish')).toThrow('shells: bash, zsh');
});
