/** Every failure the command meets has the exit code that tells it apart. */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { SluiceApiError } from '../../client';
import { ConfigException, InvalidClientRequest, ServerUnreachable, UnexpectedResponse } from '../../errors';
import { EXIT, EXIT_CODES_HELP, exitCodeOf } from './exit-codes';

const answer = (status: number, exception: string) => new SluiceApiError({ error_code: status, exception, message: 'm', path: '/p' });

describe('exit codes', () => {
  it('an error answer: 401 and 403 are authentication, 5xx the server, other 4xx a refusal', () => {
    expect(exitCodeOf(answer(401, 'Unauthorized'))).toBe(EXIT.auth);
    expect(exitCodeOf(answer(403, 'Forbidden'))).toBe(EXIT.auth);
    expect(exitCodeOf(answer(404, 'UnknownStore'))).toBe(EXIT.failed);
    expect(exitCodeOf(answer(400, 'InvalidQuery'))).toBe(EXIT.failed);
    expect(exitCodeOf(answer(409, 'InstanceExists'))).toBe(EXIT.failed);
    expect(exitCodeOf(answer(500, 'InternalError'))).toBe(EXIT.server);
    expect(exitCodeOf(answer(503, 'NoLocalInstance'))).toBe(EXIT.server);
  });

  it('no answer is unreachable, an answer not Sluice’s a server error, input refused before sending a usage error', () => {
    expect(exitCodeOf(new ServerUnreachable('http://localhost:1', 'ECONNREFUSED'))).toBe(EXIT.unreachable);
    expect(exitCodeOf(new UnexpectedResponse('HTTP 502 without the error body'))).toBe(EXIT.server);
    expect(exitCodeOf(new InvalidClientRequest('give an application id or --all'))).toBe(EXIT.usage);
    expect(exitCodeOf(new ConfigException('no bootstrap.servers'))).toBe(EXIT.usage);
  });

  it('the codes are distinct, and --help and the documentation list each one', () => {
    const codes = Object.values(EXIT);
    expect(new Set(codes).size).toBe(codes.length);
    const docs = fs.readFileSync(path.resolve(__dirname, '../../../docs/client-and-cli.md'), 'utf8');
    for (const code of codes) {
      expect(EXIT_CODES_HELP).toMatch(new RegExp(`^  ${code}  `, 'm'));
      expect(docs).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    }
  });
});
