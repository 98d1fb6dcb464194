import { EventEmitter } from 'node:events';
import { EventStream, type EventSink } from './event-stream';

/** A response stand-in whose buffer can be made full: write() then answers false until drain(). */
class FakeSink extends EventEmitter implements EventSink {
  readonly chunks: string[] = [];
  full = false;
  writableEnded = false;
  destroyed = false;

  write(chunk: unknown): boolean {
    this.chunks.push(String(chunk));
    return !this.full;
  }

  end(): this {
    this.writableEnded = true;
    return this;
  }

  drain(): void {
    this.full = false;
    this.emit('drain');
  }

  get text(): string {
    return this.chunks.join('');
  }
}

interface Frame {
  event: string;
  id: number;
  data: unknown;
}

function frames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '' && !block.startsWith(':'))
    .map((block) => {
      const [event, id, data, ...rest] = block.split('\n');
      expect(rest).toEqual([]);
      expect(event).toMatch(/^event: \S+$/);
      expect(id).toMatch(/^id: \d+$/);
      expect(data).toMatch(/^data: .+$/);
      return { event: event!.slice(7), id: Number(id!.slice(4)), data: JSON.parse(data!.slice(6)) as unknown };
    });
}

afterEach(() => jest.useRealTimers());

describe('EventStream', () => {
  it('frames each event as event, id, one-line JSON data and a blank line, ids counting up', () => {
    const sink = new FakeSink();
    const stream = new EventStream(sink, { queueSize: 10, keepaliveMs: 15_000 });
    stream.send('state', { state: 'RUNNING', note: 'line\nbreak' });
    stream.send('rebalance', { generation: 2 });
    expect(sink.text).toBe(
      'event: state\nid: 1\ndata: {"state":"RUNNING","note":"line\\nbreak"}\n\nevent: rebalance\nid: 2\ndata: {"generation":2}\n\n',
    );
    stream.close();
  });

  it('writes a comment line as keepalive', () => {
    jest.useFakeTimers();
    const sink = new FakeSink();
    const stream = new EventStream(sink, { queueSize: 10, keepaliveMs: 15_000 });
    jest.advanceTimersByTime(15_000);
    expect(sink.text).toBe(': keepalive\n\n');
    jest.advanceTimersByTime(15_000);
    expect(sink.chunks).toHaveLength(2);
    stream.close();
    jest.advanceTimersByTime(60_000);
    expect(sink.chunks).toHaveLength(2);
  });

  it('queues while the connection is full, drops the oldest past the bound and says how many', () => {
    const sink = new FakeSink();
    const stream = new EventStream(sink, { queueSize: 3, keepaliveMs: 15_000 });
    sink.full = true;
    stream.send('n', 0); // handed to the connection, which is now full
    for (let i = 1; i <= 10; i++) stream.send('n', i);
    expect(stream.pending).toBe(3);
    sink.drain();
    expect(frames(sink.text)).toEqual([
      { event: 'n', id: 1, data: 0 },
      { event: 'dropped', id: 2, data: { dropped: 7 } },
      { event: 'n', id: 3, data: 8 },
      { event: 'n', id: 4, data: 9 },
      { event: 'n', id: 5, data: 10 },
    ]);
    expect(stream.pending).toBe(0);
    stream.close();
  });

  it('a closed stream holds nothing, runs its cleanups once and ends the response', () => {
    const sink = new FakeSink();
    const stream = new EventStream(sink, { queueSize: 100, keepaliveMs: 15_000 });
    const cleanup = jest.fn();
    stream.onClose(cleanup);
    sink.full = true;
    stream.send('n', 1);
    stream.send('n', 2);
    stream.close();
    stream.close();
    expect(cleanup).toHaveBeenCalledTimes(1);
    expect(stream.pending).toBe(0);
    expect(sink.writableEnded).toBe(true);
    stream.send('n', 3);
    expect(stream.pending).toBe(0);
    const late = jest.fn();
    stream.onClose(late);
    expect(late).toHaveBeenCalledTimes(1);
  });
});
