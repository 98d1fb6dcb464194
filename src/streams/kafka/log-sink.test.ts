import { defaultKafkaLogLevel, readableKafkaLogs, type LevelledSink } from './log-sink';

function recorder(level: string): LevelledSink & { lines: [string, object, string][] } {
  const lines: [string, object, string][] = [];
  const at = (name: string) => (fields: object, message: string) => void lines.push([name, fields, message]);
  return { level, lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

describe('readableKafkaLogs', () => {
  it('drops kafkajs’ stacks unless the kafka logger is at debug', () => {
    const info = recorder('info');
    readableKafkaLogs(info).error({ broker: 'b:9092', stack: 'Error: x\n    at y' }, 'Request failed');
    expect(info.lines).toEqual([['error', { broker: 'b:9092' }, 'Request failed']]);
    const debug = recorder('debug');
    readableKafkaLogs(debug).error({ stack: 'Error: x' }, 'Request failed');
    expect(debug.lines).toEqual([['error', { stack: 'Error: x' }, 'Request failed']]);
  });

  it('tells an unreachable broker once a minute; the retries in between go to debug', () => {
    let now = 0;
    const sink = recorder('info');
    const logs = readableKafkaLogs(sink, () => now);
    logs.warn({ broker: 'b:9092', stack: 's' }, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    now = 1_000;
    logs.warn({ retryCount: 1 }, 'Failed to connect to seed broker, trying another broker from the list: Connection error');
    logs.warn({}, 'something else');
    now = 61_000;
    logs.warn({ broker: 'b:9092' }, 'Connection timeout');
    expect(sink.lines.map(([level, , message]) => `${level} ${message}`)).toEqual([
      'warn Connection error: connect ECONNREFUSED 127.0.0.1:9092 (retrying)',
      'debug Failed to connect to seed broker, trying another broker from the list: Connection error',
      'warn something else',
      'warn Connection timeout (retrying)',
    ]);
  });

  it('kafkajs logs warnings and errors by default, less when the instance logs less', () => {
    expect(['trace', 'debug', 'info', 'warn', 'error', 'silent'].map(defaultKafkaLogLevel)).toEqual(['warn', 'warn', 'warn', 'warn', 'error', 'silent']);
  });
});
