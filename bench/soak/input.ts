/**
 * The soak's input: lines of words of a fixed vocabulary (w0 .. w<V-1>, alphanumeric so that the word count keeps
 * them whole), produced to the word count's input at a steady rate. The store then holds V keys however long the
 * soak runs: memory that grows is the runtime's, not the data's.
 */
import type { KafkaClient } from '../../src/streams/kafka';
import { SteadyInput } from '../support/steady';
import { produceLines } from '../support/word-count-topics';
import { ErrorTally, errorKind, errorMessage } from './errors';

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

/** The soak's input: lines of the vocabulary at a steady rate, a failed send counted as an error. */
export function wordLines(kafka: KafkaClient, topic: string, vocabulary: number, errors: ErrorTally): SteadyInput {
  const line = lineOf(vocabulary);
  return new SteadyInput(kafka, topic, (i) => ({ key: null, value: line(i) }), (error) => errors.add(`produce ${errorKind(error)}`, errorMessage(error)));
}
