/** `sluice deploy`'s request from a file and flags, checked before anything is sent. */

import { InvalidClientRequest } from '../../errors';
import { program } from '../cli';
import { deployRequest, parseDeployFile, type DeployFlags } from './deploy-args';

const noFile = () => {
  throw new Error('no file expected');
};

describe('deploy request', () => {
  it('from the argument and flags; --set types integers and booleans', () => {
    expect(deployRequest('word-count', { name: 'wc-2', topologyVersion: '1.0.0', set: ['num.stream.threads=2', 'processing.guarantee=exactly_once_v2', 'x.enabled=true'] }, noFile)).toEqual({
      type: 'word-count',
      name: 'wc-2',
      version: '1.0.0',
      config: { 'num.stream.threads': 2, 'processing.guarantee': 'exactly_once_v2', 'x.enabled': true },
    });
    expect(deployRequest('word-count', { set: [] }, noFile)).toEqual({ type: 'word-count' });
  });

  it('from a YAML or JSON file, which the argument and flags override', () => {
    const file = parseDeployFile('wc.yaml', 'type: word-count\nname: wc-2\nconfig:\n  num.stream.threads: 2\n  commit.interval.ms: 100\n');
    expect(deployRequest(undefined, { file: 'wc.yaml', name: 'wc-3', set: ['num.stream.threads=1'] }, () => file)).toEqual({
      type: 'word-count',
      name: 'wc-3',
      config: { 'num.stream.threads': 1, 'commit.interval.ms': 100 },
    });
    expect(parseDeployFile('wc.json', '{"type": "page-views", "description": "d"}')).toEqual({ type: 'page-views', description: 'd' });
  });

  it('names what is wrong: no topology, a bad --set, a key set twice, a file that is not the deploy body', () => {
    expect(() => deployRequest(undefined, { set: [] }, noFile)).toThrow(InvalidClientRequest);
    expect(() => deployRequest('wc', { set: ['threads'] }, noFile)).toThrow("--set 'threads' must be key=value");
    expect(() => deployRequest('wc', { set: ['a=1', 'a=2'] }, noFile)).toThrow('--set a is given twice');
    expect(() => deployRequest('wc', { name: '', set: [] }, noFile)).toThrow('--name must be a non-empty string');
    expect(() => parseDeployFile('f', '- a\n- b\n')).toThrow('f must hold an object with type, version, name, description, config');
    expect(() => parseDeployFile('f', 'type: wc\nthreads: 2\n')).toThrow('f: unknown field threads');
    expect(() => parseDeployFile('f', 'name: wc\n')).toThrow('f: type must be a non-empty string');
    expect(() => parseDeployFile('f', 'type: wc\nconfig: { a: [1] }\n')).toThrow('f: config a must be a string, number or boolean');
    expect(() => parseDeployFile('f', 'type: [wc\n')).toThrow('f is neither YAML nor JSON');
  });

  it("reads its flags from the command line, the topology version beside the program's own --version", async () => {
    const cli = program();
    let seen: DeployFlags | undefined;
    cli.commands.find((command) => command.name() === 'deploy')!.action((_topology: string, flags: DeployFlags) => {
      seen = flags;
    });
    await cli.parseAsync(['deploy', 'word-count', '--topology-version', '2.0.0', '--set', 'a=1', '--set', 'b=x', '-f', 'wc.yaml'], { from: 'user' });
    expect(seen).toMatchObject({ topologyVersion: '2.0.0', set: ['a=1', 'b=x'], file: 'wc.yaml' });
  });
});
