/**
 * Remembers the eventIds of events already received, so that a second delivery of one is
 * told apart (client.Deduper in Go). {@link MemoryDeduper} keeps them in memory; a receiver
 * running on several machines can implement one over a shared store.
 */
export interface Deduper {
  /** Whether eventId was recorded before, and records it; now in milliseconds. */
  seen(eventId: string, now: number): boolean;
  /**
   * Removes eventId, so that a retry of an event that could not be processed is processed
   * again. The webhook handler calls it when its function fails.
   */
  forget(eventId: string): void;
}

/** How long, in milliseconds, a MemoryDeduper remembers an event by default: 24 hours. */
export const DEFAULT_DEDUPE_TTL = 24 * 60 * 60 * 1000;

/**
 * A {@link Deduper} in memory, for one process (client.MemoryDeduper in Go). It remembers each
 * eventId for its ttl and then forgets it, so its size is bounded by the events of one ttl.
 * To stop replays the ttl must be at least twice the verifier's tolerance; to also absorb
 * rampway's retries of deliveries whose answer was lost, make it hours. Your own processing
 * should still be idempotent by eventId: this memory is lost on restart.
 */
export class MemoryDeduper implements Deduper {
  readonly ttl: number;
  /** eventId -> when recorded, oldest first (a Map keeps insertion order). */
  readonly #seen = new Map<string, number>();

  /** ttl in milliseconds; {@link DEFAULT_DEDUPE_TTL} when unset, 0 or less. */
  constructor(ttl?: number) {
    this.ttl = ttl !== undefined && ttl > 0 ? ttl : DEFAULT_DEDUPE_TTL;
  }

  seen(eventId: string, now: number = Date.now()): boolean {
    this.#expire(now);
    if (this.#seen.has(eventId)) {
      return true;
    }
    this.#seen.set(eventId, now);
    return false;
  }

  forget(eventId: string): void {
    this.#seen.delete(eventId);
  }

  /** How many events are remembered. */
  get size(): number {
    return this.#seen.size;
  }

  /** Forgets the records ttl old or older at now. */
  #expire(now: number): void {
    const cutoff = now - this.ttl;
    for (const [id, at] of this.#seen) {
      if (at > cutoff) {
        break;
      }
      this.#seen.delete(id);
    }
  }
}
