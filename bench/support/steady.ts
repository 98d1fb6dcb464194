/** A steady rate: how the soak and the failover benchmark pace their input and queries. */
import { performance } from 'node:perf_hooks';
import { createProducer, type KafkaClient, type KafkaProducer } from '../../src/streams/kafka';

const TICK_MS = 10;

/**
 * Calls `fire(n)` every tick with the n actions due at `perSecond` since the start and not fired yet: the rate
 * holds on average whatever the timer's jitter, and a stalled event loop is made up for by a burst (open loop, as
 * real clients do not wait for the server).
 */
export function steadily(perSecond: number, fire: (n: number) => void): { stop(): void } {
  const started = performance.now();
  let fired = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond) - fired;
    if (due <= 0) return;
    fired += due;
    fire(due);
  }, TICK_MS);
  return { stop: () => clearInterval(timer) };
}

/** A message of a steady input: the i-th since it started. */
export type MessageOf = (i: number) => { key: string | null; value: string };

/** Messages at a steady rate, each acknowledged one counted; one send at a time, the messages due meanwhile go in the next. */
export class SteadyInput {
  private readonly producer: KafkaProducer;
  private next = 0;
  private due = 0;
  private sending: Promise<void> | undefined;
  private pace: { stop(): void } | undefined;
  private acknowledged = 0;

  constructor(
    kafka: KafkaClient,
    private readonly topic: string,
    private readonly messageOf: MessageOf,
    private readonly onError: (error: unknown) => void,
  ) {
    this.producer = createProducer(kafka);
  }

  async start(perSecond: number): Promise<void> {
    await this.producer.connect();
    this.pace = steadily(perSecond, (n) => {
      this.due += n;
      this.sending ??= this.send();
    });
  }

  /** Messages acknowledged since the last call. */
  takeMinute(): number {
    const messages = this.acknowledged;
    this.acknowledged = 0;
    return messages;
  }

  async stop(): Promise<void> {
    this.pace?.stop();
    await this.sending;
    await this.producer.disconnect();
  }

  private async send(): Promise<void> {
    while (this.due > 0) {
      const messages = Array.from({ length: this.due }, () => this.messageOf(this.next++));
      this.due = 0;
      try {
        await this.producer.send({ topic: this.topic, messages });
        this.acknowledged += messages.length;
      } catch (error) {
        this.onError(error);
      }
    }
    this.sending = undefined;
  }
}
