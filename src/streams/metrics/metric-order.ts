/**
 * The one order in which metrics are listed (JSON groups, Prometheus series): by code unit, independent of the
 * locale, with numeric tag values (partitions, thread numbers) in numeric order so that partition 10 follows 9.
 */

import type { MetricTags } from './metrics-registry';

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const WHOLE_NUMBER = /^\d+$/;

function compareTagValues(a: string, b: string): number {
  if (WHOLE_NUMBER.test(a) && WHOLE_NUMBER.test(b) && a.length !== b.length) return a.length - b.length;
  return compareText(a, b);
}

/** Tags compared as their entries sorted by tag name: name, then value, entry by entry; fewer entries first. */
export function compareTags(a: MetricTags, b: MetricTags): number {
  const aNames = Object.keys(a).sort(compareText);
  const bNames = Object.keys(b).sort(compareText);
  const shared = Math.min(aNames.length, bNames.length);
  for (let i = 0; i < shared; i++) {
    const aName = aNames[i];
    const bName = bNames[i];
    const byName = compareText(aName, bName);
    if (byName !== 0) return byName;
    const byValue = compareTagValues(a[aName], b[bName]);
    if (byValue !== 0) return byValue;
  }
  return aNames.length - bNames.length;
}
