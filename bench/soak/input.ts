/**
 * The soak's input: lines of words of a fixed vocabulary (w0 .. w<V-1>, alphanumeric so that the word count keeps
 * them whole), produced to the word count's input at a steady rate. The store then holds V keys however long the
 * soak runs: memory that grows is the runtime's, not the data's.
 */
import { createProducer, type KafkaClient, type KafkaProducer } from '../../src/streams/kafka';
import { produceLines } from '../support/word-count-topics';
import { ErrorTally, errorKind, errorMessage } from './errors';
import { steadily } from './steady';

const WORDS_PER_LINE = 5;

export const wordOf = (i: number): string => `w${i}`;

/** Line i: the next WORDS_PER_LINE words of the vocabulary, round it, so that its first V / 5 lines name every word. */
function lineOf(vocabulary: number): (i: number) => string {
  return (i) => Array.from({ length: WORDS_PER_LINE }, (_, j) => wordOf((i * WORDS_PER_LINE + j) % vocabulary)).join(' ');
}

/** Lines that name every word of the vocabulary once at least, as fast as the broker takes them. */
export async function produceVocabulary(kafka: KafkaClient, topic: string, vocabulary: number): Promise<void> {
  await produceLines(kafka, topic, Math.ceil(vocabulary / WORDS_PER_LINE), lineOf(vocabulary), 'the vocabulary');
}

/** Lines at a steady rate, each acknowledged one counted; one send at a time, the lines due meanwhile go in the next. */
export class SteadyInput {
  private readonly producer: KafkaProducer;
  private readonly line: (i: number) => string;
  private next = 0;
  private due = 0;
  private sending: Promise<void> | undefined;
  private pace: { stop(): void } | undefined;
  private acknowledged = 0;

  constructor(
    kafka: KafkaClient,
    private readonly topic: string,
    vocabulary: number,
    private readonly errors: ErrorTally,
  ) {
    this.producer = createProducer(kafka);
    this.line = lineOf(vocabulary);
  }

  async start(linesPerSecond: number): Promise<void> {
    await this.producer.connect();
    this.pace = steadily(linesPerSecond, (n) => {
      this.due += n;
      this.sending ??= this.send();
    });
  }

  /** Lines acknowledged since the last call. */
  takeMinute(): number {
    const lines = this.acknowledged;
    this.acknowledged = 0;
    return lines;
  }

  async stop(): Promise<void> {
    this.pace?.stop();
    await this.sending;
    await this.producer.disconnect();
  }

  private async send(): Promise<void> {
    while (this.due > 0) {
      const messages = Array.from({ length: this.due }, () => ({ key: null, value: this.line(this.next++) }));
      this.due = 0;
      try {
        await this.producer.send({ topic: this.topic, messages });
        this.acknowledged += messages.length;
      } catch (error) {
        this.errors.add(`produce ${errorKind(error)}`, errorMessage(error));
      }
    }
    this.sending = undefined;
  }
}
