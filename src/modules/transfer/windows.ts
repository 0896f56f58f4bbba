// How the import on PostgreSQL groups lines into windows: the lines it sends before waiting for
// their answers, one round trip a window instead of several a line (service.ts, importFileAwaiting),
// and the windows themselves (`Windows`): when one lands, and which failure is the import's.

/** Lines an import on PostgreSQL sends in one window before waiting for their answers. */
export const PIPELINED_LINES = 500;

/**
 * The kinds of line that may share a window. A creator and its links do: the creator's insert is
 * sent as its line is read, before any read, so the links sent behind it find it (the data set
 * alternates creator and link lines every two to five lines, and a window each cost a round trip
 * a run). Deals and reviews do: a review is written when its window lands, after the window's
 * deals (writers.ts), so it finds the deal it is of, usually the line before it (the data set
 * alternates one to eight deals and a review: 5,063 windows of their own, 754 shared, each a few
 * dependent round trips). Every other kind has windows of its own.
 */
export function windowGroup(type: unknown): unknown {
  if (type === "connection") return "creator";
  if (type === "review") return "deal";
  return type;
}

/** A field as a key compares it: trimmed, without a leading @, lower case. */
const keyText = (field: unknown) => String(field ?? "").trim().replace(/^@/, "").toLowerCase();

/** Reviews between two creators, whichever wrote them: a review may be of a deal in either direction. */
function reviewsOfPair(from: unknown, to: unknown): string {
  const [a, b] = [keyText(from), keyText(to)].sort();
  return `review:${a}|${b}`;
}

/**
 * What a line of a pipelined kind must not share with another line of its window (two lines with
 * one key run one after the other); null for a kind that runs alone (accounts, servers, unknown).
 */
export function pipelineKey(value: { type?: unknown; [field: string]: unknown }, lineNo: number): string | null {
  switch (value.type) {
    case "entry":
      return `entry:${value.id ?? lineNo}`;
    case "creator":
      return keyText(value.handle);
    case "connection":
      return `${keyText(value.provider)}:${keyText(value.provider_user_id)}`;
    case "deal":
      return `deal:${value.id ?? lineNo}`;
    case "review":
      return reviewsOfPair(value.from, value.to);
    case "vouch":
      return `${keyText(value.from)}>${keyText(value.to)}`;
    case "referral":
      return keyText(value.referred);
    default:
      return null;
  }
}

/**
 * Another line's key this line must not follow within a window, or null. A deal waits for the
 * window holding a review of its two creators to land: the review, written when its window lands,
 * must not find a deal of a later line.
 */
export function pipelineWaitsFor(value: { type?: unknown; [field: string]: unknown }): string | null {
  return value.type === "deal" ? reviewsOfPair(value.from, value.to) : null;
}

/** What a window does when it lands: the writer's held-back statements, each line's count, the failure's line. */
export interface WindowHooks<C> {
  /** Sends what the writer holds back for the window (its entries); each line's answer settles then. */
  flush?: () => Promise<void>;
  counted: (counted: C) => void;
  /** After a window landed (or was sent to land meanwhile). */
  landed: () => Promise<void>;
  lineError: (error: unknown, lineNo: number) => unknown;
}

/**
 * The import's windows on PostgreSQL. Lines of one kind do not read what the others of their run
 * write (a creator, its link and a vouch naming it come in separate runs), so a run is sent
 * without waiting for each answer and the transaction's connection pipelines the statements: one
 * round trip a window instead of several a line. A line whose key is already in the window (the
 * same account, pair or handle) and a line of another kind wait for the window to land.
 */
export class Windows<C> {
  private window: Array<{ lineNo: number; work: Promise<C> }> = [];
  private kind: unknown = null;
  private readonly keys = new Set<string>();
  /**
   * A full window of entries, or of creators and their links, lands while the next one is read:
   * nothing reads what it writes but later windows' statements, which run behind it on the one
   * connection. Its answers are checked
   * when the next window lands (or the import ends), its failure first. (100k entries of the bench
   * data set: 6.5 s with each window awaited; with one landing while the next is read and sent
   * behind it, 3.6 s with the other changes of the import's entries, 2-core machine, Nov 2026.)
   */
  private inFlight: Promise<void> | null = null;

  constructor(private readonly hooks: WindowHooks<C>) {}

  /**
   * Before a line of `group` (windowGroup) with `key` (pipelineKey) starts: lands the window when
   * the line may not join it, or when it holds `waitsFor` (pipelineWaitsFor).
   */
  async makeRoom(key: string | null, group: unknown, waitsFor: string | null = null): Promise<void> {
    if (key === null || group !== this.kind || this.keys.has(key) || (waitsFor !== null && this.keys.has(waitsFor))) await this.land();
    else if (this.window.length >= PIPELINED_LINES) await this.land(this.kind === "entry" || this.kind === "creator");
    this.kind = group;
  }

  add(lineNo: number, key: string, work: C | Promise<C>): void {
    this.keys.add(key);
    const settling = Promise.resolve(work);
    // A line may fail before its window lands (a deal whose creator is unknown, while the window
    // waits for its deals to write its reviews): its failure is read when the window lands or is
    // abandoned, and is not the process's unhandled rejection meanwhile.
    settling.catch(() => {});
    this.window.push({ lineNo, work: settling });
  }

  async land(overlap = false): Promise<void> {
    // Sent behind the window still landing, so that the server goes from one to the next without
    // waiting for this side to hear the first one's answers.
    const flushed = this.hooks.flush?.();
    const landing = this.window;
    this.window = [];
    this.keys.clear();
    try {
      await this.settleInFlight();
    } catch (error) {
      await flushed?.catch(() => {});
      await Promise.allSettled(landing.map((w) => w.work));
      throw error;
    }
    const settle = async () => {
      await flushed;
      const settled = await Promise.allSettled(landing.map((w) => w.work));
      const failed = settled.findIndex((r) => r.status === "rejected");
      if (failed !== -1) throw this.hooks.lineError((settled[failed] as PromiseRejectedResult).reason, landing[failed]!.lineNo);
      for (const r of settled) this.hooks.counted((r as PromiseFulfilledResult<C>).value);
    };
    if (overlap) {
      this.inFlight = settle();
      this.inFlight.catch(() => {}); // awaited by the next land, or by `abandon`
    } else await settle();
    await this.hooks.landed();
  }

  /**
   * After `error`: lets every statement in flight end before the transaction rolls back (lines
   * held back are written into it first, so that every line's answer settles). Returns the
   * import's error: a window still landing, then the open window, hold earlier lines, so their
   * failures come first.
   */
  async abandon(error: unknown): Promise<unknown> {
    const earlier = await this.settleInFlight().then(
      () => null,
      (failure: unknown) => failure,
    );
    await this.hooks.flush?.().catch(() => {});
    // The window holds lines before the one that failed: the first of them that failed comes first.
    const settled = await Promise.allSettled(this.window.map((w) => w.work));
    const failed = settled.findIndex((r) => r.status === "rejected");
    const inWindow = failed === -1 ? null : this.hooks.lineError((settled[failed] as PromiseRejectedResult).reason, this.window[failed]!.lineNo);
    return earlier ?? inWindow ?? error;
  }

  private async settleInFlight(): Promise<void> {
    const landing = this.inFlight;
    this.inFlight = null;
    await landing;
  }
}
