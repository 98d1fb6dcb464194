/**
 * Timestamps of resources in Java's ISO_ZONED_DATE_TIME form with a fixed millisecond part, as the compatibility
 * file asks: `2026-11-22T01:30:00.123Z[UTC]`. The process speaks UTC whatever its local zone, so that every node
 * of a cluster shows the same text for the same instant.
 */
export function zonedTimestamp(epochMs: number): string {
  return `${new Date(epochMs).toISOString()}[UTC]`;
}

/** What `zonedTimestamp` produces, for schemas and tests. */
export const ZONED_TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2})\\[[A-Za-z0-9_+/-]+\\]$';
