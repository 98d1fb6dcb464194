import { Serdes, sessionWindowedSerde, timeWindowedSerde, TopologyTestDriver } from '../src';
import type { TestInputTopic } from '../src';
import {
  type EnrichedPageView,
  PAGE_VIEW_TOPICS,
  PAGE_VIEWS_PER_MINUTE_STORE,
  pageViewsTopology,
  type User,
  USER_SESSIONS_STORE,
  USERS_STORE,
  VIEW_WINDOW_MS,
} from './page-views';

const SECOND = 1000;

describe('page-view example', () => {
  let driver: TopologyTestDriver;
  let views: TestInputTopic<string, string>;

  beforeEach(() => {
    driver = new TopologyTestDriver(pageViewsTopology(), { 'application.id': 'page-views' }, 0);
    views = driver.createInputTopic(PAGE_VIEW_TOPICS.pageViews, Serdes.String(), Serdes.String());
    const users = driver.createInputTopic(PAGE_VIEW_TOPICS.users, Serdes.String(), Serdes.Json<User>());
    users.pipeInput('u1', { name: 'Ada', region: 'eu' }, 0);
    users.pipeInput('u2', { name: 'Bob', region: 'us' }, 0);
  });

  afterEach(async () => {
    await driver.close();
  });

  /** Six views up to 75 s, out of order at 58 s; then one 20 s late for the first minute, and one at 200 s. */
  function pipeViews(): void {
    views.pipeInput('u1', '/home', 1 * SECOND);
    views.pipeInput('u2', '/home', 20 * SECOND);
    views.pipeInput('u1', '/docs', 50 * SECOND);
    views.pipeInput('u1', '/home', 61 * SECOND);
    views.pipeInput('u2', '/home', 58 * SECOND); // out of order; [0, 60 s) is open until 70 s
    views.pipeInput('u3', '/docs', 75 * SECOND);
  }

  function counts(topic: string): string[] {
    const output = driver.createOutputTopic(topic, timeWindowedSerde(Serdes.String(), VIEW_WINDOW_MS), Serdes.Long());
    return output.readRecordsToList().map((r) => `${r.key!.key}@${r.key!.window.start / SECOND}s=${r.value}`);
  }

  it('counts views per page per minute on every update, and the final count once the minute closes', () => {
    pipeViews();
    expect(driver.getWindowStore<string, { value: number }>(PAGE_VIEWS_PER_MINUTE_STORE).fetch('/home', 0)?.value).toBe(3);
    views.pipeInput('u1', '/home', 55 * SECOND); // later than the grace: dropped
    views.pipeInput('u2', '/about', 200 * SECOND);
    expect(counts(PAGE_VIEW_TOPICS.viewCounts)).toEqual([
      '/home@0s=1',
      '/home@0s=2',
      '/docs@0s=1',
      '/home@60s=1',
      '/home@0s=3',
      '/docs@60s=1',
      '/about@180s=1',
    ]);
    expect(counts(PAGE_VIEW_TOPICS.finalViewCounts)).toEqual(['/docs@0s=1', '/home@0s=3', '/docs@60s=1', '/home@60s=1']);
    expect(driver.droppedRecords).toBe(1);
  });

  it('counts views per user session, merging sessions as views fill the gaps', () => {
    pipeViews();
    views.pipeInput('u1', '/home', 55 * SECOND);
    views.pipeInput('u2', '/about', 200 * SECOND);
    const output = driver.createOutputTopic(PAGE_VIEW_TOPICS.userSessions, sessionWindowedSerde(Serdes.String()), Serdes.Long());
    expect(output.readRecordsToList().map((r) => `${r.key!.key}[${r.key!.window.start / SECOND},${r.key!.window.end / SECOND}]=${r.value}`)).toEqual([
      'u1[1,1]=1',
      'u2[20,20]=1',
      'u1[1,1]=null',
      'u1[1,50]=2',
      'u1[1,50]=null',
      'u1[1,61]=3',
      'u2[20,20]=null',
      'u2[20,58]=2',
      'u3[75,75]=1',
      'u1[1,61]=4',
      'u2[20,58]=null',
      'u2[20,200]=3',
    ]);
    const sessions = driver.getSessionStore<string, number>(USER_SESSIONS_STORE);
    // One session per user is left; the store lists them segment by segment (by session end).
    expect([...sessions.fetchKeyRange(undefined, undefined)].map((kv) => `${kv.key.key}=${kv.value}`).sort()).toEqual(['u1=4', 'u2=3', 'u3=1']);
  });

  it('joins every view with its user, unknown users with nulls', () => {
    pipeViews();
    const output = driver.createOutputTopic(PAGE_VIEW_TOPICS.enrichedViews, Serdes.String(), Serdes.Json<EnrichedPageView>());
    expect(output.readValuesToList()).toEqual([
      { user: 'u1', page: '/home', name: 'Ada', region: 'eu' },
      { user: 'u2', page: '/home', name: 'Bob', region: 'us' },
      { user: 'u1', page: '/docs', name: 'Ada', region: 'eu' },
      { user: 'u1', page: '/home', name: 'Ada', region: 'eu' },
      { user: 'u2', page: '/home', name: 'Bob', region: 'us' },
      { user: 'u3', page: '/docs', name: null, region: null },
    ]);
  });

  it('joins each view with the user as they were at the time of the view, late views and out-of-order updates included', () => {
    const users = driver.createInputTopic(PAGE_VIEW_TOPICS.users, Serdes.String(), Serdes.Json<User>());
    users.pipeInput('u1', { name: 'Ada', region: 'us' }, 30 * SECOND);
    users.pipeInput('u1', { name: 'Ada', region: 'apac' }, 50 * SECOND);
    views.pipeInput('u1', '/home', 45 * SECOND);
    users.pipeInput('u1', { name: 'Ada', region: 'latam' }, 40 * SECOND); // out of order: between the two
    views.pipeInput('u1', '/blog', 45 * SECOND);
    views.pipeInput('u1', '/docs', 10 * SECOND); // late: before the move to us
    views.pipeInput('u1', '/about', 55 * SECOND);
    const output = driver.createOutputTopic(PAGE_VIEW_TOPICS.enrichedViews, Serdes.String(), Serdes.Json<EnrichedPageView>());
    expect(output.readValuesToList().map((view) => `${view?.page}:${view?.region}`)).toEqual(['/home:us', '/blog:latam', '/docs:eu', '/about:apac']);
    const store = driver.getVersionedKeyValueStore<string, User>(USERS_STORE);
    expect(store.get('u1')).toEqual({ value: { name: 'Ada', region: 'apac' }, timestamp: 50 * SECOND });
    expect(store.get('u1', 45 * SECOND)).toEqual({ value: { name: 'Ada', region: 'latam' }, timestamp: 40 * SECOND, validTo: 50 * SECOND });
    expect(store.get('u1', 20 * SECOND)).toEqual({ value: { name: 'Ada', region: 'eu' }, timestamp: 0, validTo: 30 * SECOND });
  });

  it('declares the views and the users topics co-partitioned', () => {
    expect(pageViewsTopology().copartitionedTopics()).toEqual([[PAGE_VIEW_TOPICS.pageViews, PAGE_VIEW_TOPICS.users]]);
  });
});
