/**
 * The scripted input of the page-view integration tests, and what the tests read back: the same views as
 * examples/page-views.test.ts, out of order and late, at times relative to a base a few minutes in the past (so that
 * the broker's time-based retention leaves the records and changelogs alone).
 */
import { Serdes, timeWindowedSerde } from '../../../src';
import type { ReadOnlySessionStore, ReadOnlyWindowStore, StreamsInstance, ValueAndTimestamp } from '../../../src';
import type { ConsumedRecord, KafkaConsumer, KafkaProducer } from '../../../src/streams/kafka';
import {
  type EnrichedPageView,
  type PageViewTopics,
  PAGE_VIEWS_PER_MINUTE_STORE,
  type User,
  USER_SESSIONS_STORE,
  VIEW_WINDOW_MS,
} from '../../../examples/page-views';

const SECOND = 1000;

/** A minute boundary ten minutes ago: windows of the script start there. */
export function scriptBase(): number {
  return Math.floor(Date.now() / VIEW_WINDOW_MS) * VIEW_WINDOW_MS - 10 * VIEW_WINDOW_MS;
}

/** The users table; u3 is not in it. */
const USERS: Readonly<Record<string, User>> = { u1: { name: 'Ada', region: 'eu' }, u2: { name: 'Bob', region: 'us' } };

export async function produceUsers(producer: KafkaProducer, topics: PageViewTopics, base: number): Promise<void> {
  const messages = Object.entries(USERS).map(([id, user]) => ({ key: id, value: JSON.stringify(user), timestamp: String(base) }));
  await producer.send({ topic: topics.users, messages });
}

/** User, page, seconds after the base: six views, one out of order (58 s), one late (55 s after 75 s), one that closes the first two minutes. */
export const VIEWS: readonly [string, string, number][] = [
  ['u1', '/home', 1],
  ['u2', '/home', 20],
  ['u1', '/docs', 50],
  ['u1', '/home', 61],
  ['u2', '/home', 58],
  ['u3', '/docs', 75],
  ['u1', '/home', 55],
  ['u2', '/about', 130],
];

/** Every view joined with its user, in order. */
export function expectedEnrichedViews(): EnrichedPageView[] {
  return VIEWS.map(([user, page]) => ({ user, page, name: USERS[user]?.name ?? null, region: USERS[user]?.region ?? null }));
}

export async function produceViews(producer: KafkaProducer, topics: PageViewTopics, base: number): Promise<void> {
  const messages = VIEWS.map(([user, page, seconds]) => ({ key: user, value: page, timestamp: String(base + seconds * SECOND) }));
  await producer.send({ topic: topics.pageViews, messages });
}

/** Collects `count` records of a topic from the start, as kafkajs delivers them. */
export async function consumeRaw(consumer: KafkaConsumer, topic: string, count: number, timeoutMs = 60_000): Promise<ConsumedRecord[]> {
  const records: ConsumedRecord[] = [];
  let done!: () => void;
  const enough = new Promise<void>((resolve) => (done = resolve));
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      records.push(message);
      if (records.length >= count) done();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      enough,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`received ${records.length} of ${count} records from ${topic}`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await consumer.stop();
  }
  return records;
}

/** A windowed count as `page@seconds-after-base=count`. */
export function windowedCount(record: ConsumedRecord, base: number): string {
  const key = timeWindowedSerde(Serdes.String(), VIEW_WINDOW_MS).deserialize(record.key!);
  const count = record.value === null ? null : Serdes.Long().deserialize(record.value);
  return `${key.key}@${(key.window.start - base) / SECOND}s=${count}`;
}

/** What the page-view stores answer, in a form two instances' answers can be compared in. */
export interface StoreAnswers {
  /** `fetchAll` of the per-minute counts. */
  windows: string[];
  /** `fetch(page, start)` of each of those windows. */
  fetches: string[];
  /** `fetchRange(page, 0, now)` of each page, and its backward variant. */
  ranges: string[];
  /** The sessions of each user. */
  sessions: string[];
}

export function storeAnswers(instance: StreamsInstance, base: number): StoreAnswers {
  const answers: StoreAnswers = { windows: [], fetches: [], ranges: [], sessions: [] };
  const at = (time: number): number => (time - base) / SECOND;
  for (const store of instance.queryableStores(PAGE_VIEWS_PER_MINUTE_STORE).values()) {
    const windows = store as unknown as ReadOnlyWindowStore<string, ValueAndTimestamp<number>>;
    const pages = new Set<string>();
    for (const { key, value } of windows.fetchAll(0, Date.now())) {
      answers.windows.push(`${key.key}@${at(key.window.start)}s=${value.value}`);
      answers.fetches.push(`${key.key}@${at(key.window.start)}s=${windows.fetch(key.key, key.window.start)?.value}`);
      pages.add(key.key);
    }
    for (const page of pages) {
      const forward = [...windows.fetchRange(page, 0, Date.now())].map((kv) => `${at(kv.key)}s=${kv.value.value}`);
      const backward = [...windows.backwardFetchRange(page, 0, Date.now())].map((kv) => `${at(kv.key)}s=${kv.value.value}`);
      answers.ranges.push(`${page}: ${forward.join(' ')} | ${backward.join(' ')}`);
    }
  }
  for (const store of instance.queryableStores(USER_SESSIONS_STORE).values()) {
    const sessions = store as unknown as ReadOnlySessionStore<string, number>;
    for (const user of ['u1', 'u2', 'u3']) {
      for (const { key, value } of sessions.fetch(user)) answers.sessions.push(`${user}[${at(key.window.start)},${at(key.window.end)}]=${value}`);
    }
  }
  for (const list of Object.values(answers) as string[][]) list.sort();
  return answers;
}
