/**
 * The word-count benchmark's corpus: line i is deterministic, of 3 to 7 words.
 *
 * By default its words follow Zipf's law over a vocabulary of 10 000, as the words of a text do: a few words are
 * most of the counts and the count's partitions get their share of a large set of keys. With `vocabulary` 12 or
 * less it is the corpus the benchmark first had, the first `vocabulary` of 12 words in a fixed cycle, which puts
 * half the repartitioned words in one partition and counts only 12 keys: a load no real word count has, and one
 * under which Kafka Streams runs at half its speed on a larger vocabulary (see the README).
 */
export const DEFAULT_VOCABULARY = 10_000;

const CYCLE_WORDS = ['kafka', 'streams', 'sluice', 'node', 'table', 'stream', 'topic', 'partition', 'record', 'state', 'store', 'query'];
const SYLLABLES = ['ka', 'fu', 'ri', 'so', 'ne', 'ta', 'lo', 'mi', 'pe', 'du', 'xa', 'vo', 'ge', 'hi', 'ju', 'qe'];

/**
 * Line i of the corpus whose every word is distinct (word j of line i is the (8i + j)-th word): each count is 1, no
 * key is read twice, so the record caches save nothing and every word is a store write and an output record.
 */
export function uniqueCorpus(): (i: number) => string {
  return (i) => Array.from({ length: 3 + (i % 5) }, (_, j) => wordOf(i * 8 + j)).join(' ');
}

/** Words per line of the cache-hostile corpus, beside its common word. */
export const HOSTILE_WORDS_PER_LINE = 10;
export const HOSTILE_COMMON_WORD = 'common';

/**
 * The cache-hostile corpus (issue 37's load): line i holds words w<10i> to w<10i+9>, each once in the whole input, and
 * one word common to every line, so a corpus of `lines` lines has 10 * lines + 1 distinct keys.
 */
export function hostileCorpus(): (i: number) => string {
  return (i) => `${Array.from({ length: HOSTILE_WORDS_PER_LINE }, (_, j) => `w${i * HOSTILE_WORDS_PER_LINE + j}`).join(' ')} ${HOSTILE_COMMON_WORD}`;
}

/** Lines of the cache-hostile corpus that make at least `keys` distinct keys. */
export function hostileLines(keys: number): number {
  return Math.ceil((keys - 1) / HOSTILE_WORDS_PER_LINE);
}

/** Line i of the corpus over `vocabulary` words. */
export function corpusOf(vocabulary: number): (i: number) => string {
  if (vocabulary <= CYCLE_WORDS.length) {
    const words = CYCLE_WORDS.slice(0, vocabulary);
    return (i) => Array.from({ length: 3 + (i % 5) }, (_, j) => words[(i * 7 + j * 13) % words.length]!).join(' ');
  }
  const words = Array.from({ length: vocabulary }, (_, k) => wordOf(k));
  // Zipf's law (exponent 1): word k is drawn in proportion to 1 / (k + 1), by its cumulative weight.
  const cumulative = new Float64Array(vocabulary);
  let total = 0;
  for (let k = 0; k < vocabulary; k++) cumulative[k] = total += 1 / (k + 1);
  const draw = (u: number): string => {
    const target = u * total;
    let low = 0;
    let high = vocabulary - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return words[low]!;
  };
  return (i) => Array.from({ length: 3 + (i % 5) }, (_, j) => draw(uniform(i, j))).join(' ');
}

/** Word k: its number in base 16, a syllable a digit (ka, fu, … fuka …), so words are letters, as a text's are. */
function wordOf(k: number): string {
  let word = '';
  let rest = k + 1;
  do {
    word += SYLLABLES[rest % SYLLABLES.length];
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  return word;
}

/** A uniform number in [0, 1) from (i, j): a hash, so that any line can be made alone. */
function uniform(i: number, j: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(j + 1, 0xc2b2ae35);
  h ^= h >>> 13;
  h = Math.imul(h, 0x27d4eb2f);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}
