// Following the change feed (`GET /v1/blacklist/changes`) for as long as the caller wants: pages
// are read until caught up, then the feed is polled. The feed's cursors are signed by the server
// and mark the end of a page, so a change inside a page carries the cursor its page was read with
// (resuming there reads that page again), and the page's last change carries `next_cursor`.
// Delivery is at least once: `seq` grows strictly, so a caller that stores it skips repeats, and
// `afterSeq` does that here.
import { TrustlistError } from "./errors.js";
import { sleep } from "./transport.js";

interface Page<C> {
  data: C[];
  next_cursor: string | null;
  has_more: boolean;
}
interface ChangeLike {
  seq: number;
}
type ReadPage<C> = (query: { cursor?: string; limit?: number }, options: { signal?: AbortSignal }) => Promise<Page<C>>;

export interface FollowOptions {
  /** Where to resume: a `cursor` a followed change carried. Default: the feed's beginning. */
  cursor?: string;
  /** Skip changes up to this `seq` (the last one handled before a restart). */
  afterSeq?: number;
  /** Page size, 1-1000. Default 100. */
  limit?: number;
  /** Pause between polls once caught up, in ms. Default 5000. */
  pollMs?: number;
  /** Ends the following: the loop finishes without an error. */
  signal?: AbortSignal;
  /** Called when a read failed after the client's own retries; the follower waits `pollMs` and reads again. */
  onError?: (error: TrustlistError) => void;
}

/** Statuses that reading again cannot fix: a refused key, a plan or scope that does not allow it, a bad cursor. */
const FINAL = new Set([400, 401, 402, 403, 404, 422]);

export async function* followChanges<C extends ChangeLike>(read: ReadPage<C>, options: FollowOptions = {}): AsyncGenerator<{ change: C; cursor: string | undefined }> {
  const { signal, limit } = options;
  const pollMs = options.pollMs ?? 5000;
  let cursor = options.cursor;
  let lastSeq = options.afterSeq ?? -Infinity;
  const stopped = () => signal?.aborted === true;
  /** Waits `ms`; false when the signal ended the wait. */
  const pause = (ms: number) => sleep(ms, signal).then(() => true, () => false);

  while (!stopped()) {
    let page: Page<C>;
    try {
      page = await read({ cursor, limit }, { signal });
    } catch (error) {
      if (stopped()) return;
      if (!(error instanceof TrustlistError) || FINAL.has(error.status)) throw error;
      options.onError?.(error);
      if (!(await pause(pollMs))) return;
      continue;
    }
    const pageCursor = cursor;
    for (const [i, change] of page.data.entries()) {
      const last = i === page.data.length - 1;
      const resumeAt = last ? (page.next_cursor ?? pageCursor) : pageCursor;
      if (Number(change.seq) <= lastSeq) continue;
      lastSeq = Number(change.seq);
      yield { change, cursor: resumeAt };
      if (stopped()) return;
    }
    cursor = page.next_cursor ?? cursor;
    if (!page.has_more && !(await pause(pollMs))) return;
  }
}
