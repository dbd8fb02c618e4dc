/**
 * The overview feed after seeding it from `events.recent` (oldest first) while live events may
 * already have arrived: everything fetched, then the live events it does not include (later than
 * its last event, or at that same ms but not among the fetched ones). Oldest first, like the feed.
 */
import type { EngineEvent } from '../../../../app/api/contract.js';

export function mergeFeed(fetched: EngineEvent[], live: EngineEvent[]): EngineEvent[] {
  const last = fetched.at(-1)?.atMs ?? -Infinity;
  const sameMs = new Set(fetched.filter((e) => e.atMs === last).map((e) => JSON.stringify(e)));
  return [...fetched, ...live.filter((e) => e.atMs > last || (e.atMs === last && !sameMs.has(JSON.stringify(e))))];
}
