/** A server-sent-events client over undici for the API tests: collects the frames of one stream as they arrive. */
import { request } from 'undici';
import { waitFor } from '../../support/streams';

export interface Frame {
  event: string;
  id: number;
  data: Record<string, unknown>;
}

export class EventSubscription {
  readonly frames: Frame[] = [];
  private buffer = '';

  private constructor(private readonly body: NodeJS.ReadableStream & { destroy(): void }) {
    body.setEncoding('utf8');
    body.on('data', (chunk: string) => this.take(chunk));
  }

  static async open(url: string): Promise<EventSubscription> {
    const response = await request(url);
    if (response.statusCode !== 200) throw new Error(`subscription answered ${response.statusCode}: ${await response.body.text()}`);
    if (response.headers['content-type'] !== 'text/event-stream; charset=utf-8') throw new Error('not an event stream');
    return new EventSubscription(response.body);
  }

  /** The `state` values received so far, in order. */
  states(): string[] {
    return this.frames.filter((f) => f.event === 'state').map((f) => String(f.data.state));
  }

  async waitFor(predicate: (frames: Frame[]) => boolean, what: string, timeoutMs = 90_000): Promise<void> {
    await waitFor(() => predicate(this.frames), `${what}; frames: ${JSON.stringify(this.frames.map((f) => [f.event, f.data.state ?? '']))}`, timeoutMs);
  }

  close(): void {
    this.body.destroy();
  }

  private take(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      if (block.startsWith(':')) continue;
      const lines = block.split('\n');
      if (lines.length !== 3 || !lines[0]!.startsWith('event: ') || !lines[1]!.startsWith('id: ') || !lines[2]!.startsWith('data: ')) {
        throw new Error(`malformed event: ${JSON.stringify(block)}`);
      }
      this.frames.push({ event: lines[0]!.slice(7), id: Number(lines[1]!.slice(4)), data: JSON.parse(lines[2]!.slice(6)) as Record<string, unknown> });
    }
  }
}
