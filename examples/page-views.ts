import { Materialized, Serdes, SessionWindows, Stores, StreamsBuilder, Suppressed, TimeWindows } from '../src';
import type { Topology } from '../src';

/** The topics of the page-view example; page views are keyed by user id with the page as value. */
export interface PageViewTopics {
  /** Input: user id → page. */
  pageViews: string;
  /** Input, a versioned table: user id → `{"name", "region"}` (JSON), as it was from each record's time on. */
  users: string;
  /** Views per page per minute, on every update: windowed page → count. */
  viewCounts: string;
  /** The same counts, once per window when it closes (emit-final). */
  finalViewCounts: string;
  /** Views per user session: session-windowed user → count (null when a session is merged into a larger one). */
  userSessions: string;
  /** Each view with its user: user id → EnrichedPageView (JSON). */
  enrichedViews: string;
}

export const PAGE_VIEW_TOPICS: PageViewTopics = {
  pageViews: 'page-views',
  users: 'users',
  viewCounts: 'page-view-counts',
  finalViewCounts: 'page-view-counts-final',
  userSessions: 'user-sessions',
  enrichedViews: 'enriched-page-views',
};

export const PAGE_VIEWS_PER_MINUTE_STORE = 'page-views-per-minute';
export const USER_SESSIONS_STORE = 'user-sessions';
export const USERS_STORE = 'users';

export const VIEW_WINDOW_MS = 60_000;
export const SESSION_GAP_MS = 5 * 60_000;
/** How late a view may come and still count. */
export const GRACE_MS = 10_000;
/** How long the users table keeps the past versions of a user: a view up to this late still meets the user as they were. */
export const USER_HISTORY_MS = 60 * 60_000;

export interface User {
  name: string;
  region: string;
}

export interface EnrichedPageView {
  user: string;
  page: string;
  /** Null for a user the users table does not know (yet). */
  name: string | null;
  region: string | null;
}

/**
 * Page views three ways: counted per page in 1-minute tumbling windows (updates and final results), counted per
 * user session with a 5-minute inactivity gap, and joined with the users table. The users table is versioned: each
 * view meets the user as they were at the view's time, also when the view arrives after a later update of the user
 * (or the update arrives out of order), within the table's hour of history.
 */
export function pageViewsTopology(topics: PageViewTopics = PAGE_VIEW_TOPICS): Topology {
  const builder = new StreamsBuilder();
  const views = builder.stream<string, string>(topics.pageViews, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  const users = builder.table<string, User>(
    topics.users,
    { keySerde: Serdes.String(), valueSerde: Serdes.Json<User>() },
    Materialized.as(Stores.persistentVersionedKeyValueStore(USERS_STORE, USER_HISTORY_MS)),
  );

  const perMinute = views
    .groupBy((_user, page) => page, { keySerde: Serdes.String(), valueSerde: Serdes.String(), name: 'views-by-page' })
    .windowedBy(TimeWindows.ofSizeAndGrace(VIEW_WINDOW_MS, GRACE_MS))
    .count({ storeName: PAGE_VIEWS_PER_MINUTE_STORE });
  perMinute.toStream().to(topics.viewCounts, { valueSerde: Serdes.Long() });
  perMinute.suppress(Suppressed.untilWindowCloses()).toStream().to(topics.finalViewCounts, { valueSerde: Serdes.Long() });

  views
    .groupByKey()
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(SESSION_GAP_MS, GRACE_MS))
    .count({ storeName: USER_SESSIONS_STORE })
    .toStream()
    .to(topics.userSessions, { valueSerde: Serdes.Long() });

  views
    .leftJoin(users, (page, user, userId): EnrichedPageView => ({ user: userId, page, name: user?.name ?? null, region: user?.region ?? null }))
    .to(topics.enrichedViews, { keySerde: Serdes.String(), valueSerde: Serdes.Json<EnrichedPageView>() });
  return builder.build();
}
