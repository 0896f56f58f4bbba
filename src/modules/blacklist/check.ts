// The checks: one account (the keyed check, the bot's hot path), a batch, and the verdict the
// public search reads. A subject the filter rules out is answered without the database. On SQLite
// every step is a synchronous prepared statement, so the keyed check answers without a promise;
// on PostgreSQL the active rows of subjects checked lately are cached, and dropped for a subject
// this instance writes and entirely when another instance commits.
import { type Clock, iso } from "../../clock";
import type { Provider, Severity, Vertical } from "../../domain";
import { ServiceError } from "../../errors";
import { isProvider, normalizeAccountId } from "./entry";
import type { BatchCheckResult, CheckResult as CheckResultModel } from "./model";
import type { BlacklistStore, BlacklistSyncStore, HitRow, SubjectKey } from "./store";
import type { SubjectFilter } from "./subject-filter";

export type CheckResult = typeof CheckResultModel.static;
export type BatchRow = typeof BatchCheckResult.static;

export interface CheckVerdict {
  /** The most severe confirmed hit, if any. */
  hit: HitRow | null;
  highRisk: boolean;
  watchlist: boolean;
}

const SEVERITY_RANK: Record<Severity, number> = { warn: 1, restrict: 2, ban: 3 };

const CLEAN: CheckVerdict = Object.freeze({ hit: null, highRisk: false, watchlist: false });

/** One turn's subjects missed in the verdict cache: each one's place in the look-up, and its answer. */
interface Misses {
  at: Map<string, number>;
  subjects: SubjectKey[];
  rows: Promise<HitRow[][]>;
}

/** Subjects whose rows the PostgreSQL verdict cache holds at most; past it, the cache starts over. */
const MAX_CACHED_SUBJECTS = 100_000;

export class BlacklistChecks {
  /** The store's synchronous reads, where it has them (SQLite): the keyed check stays free of promises. */
  private readonly sync: BlacklistSyncStore | undefined;
  /**
   * Without synchronous reads (PostgreSQL): the active rows of subjects checked lately. A read that
   * began before a drop does not fill it (`generation`).
   */
  private readonly hits = new Map<string, HitRow[]>();
  private generation = 0;
  /**
   * The subjects this turn of the event loop missed in `hits`, looked up together once the turn's
   * requests have all asked (a statement per subject was most of a PostgreSQL check's cost: the
   * bench's queries name a new subject each time).
   */
  private misses: Misses | null = null;

  constructor(
    private readonly store: BlacklistStore,
    private readonly subjects: SubjectFilter,
    private readonly clock: Clock,
  ) {
    this.sync = store.sync;
  }

  /** Whether the verdicts are cached, and a write must say what it changed (`forget`). */
  get caching(): boolean {
    return !this.sync;
  }

  /** Drops one subject's cached rows: this instance wrote one of them. */
  forget(provider: string, id: string): void {
    this.hits.delete(`${provider}\0${id}`);
    this.generation++;
  }

  /** Drops every cached row: another instance committed, or a write of this one ended. */
  forgetAll(): void {
    this.hits.clear();
    this.generation++;
  }

  /**
   * The verdict without a promise where it can: always on SQLite; on PostgreSQL for subjects the
   * filter rules out or the cache holds. A cache miss is one query.
   */
  verdictOf(provider: Provider, accountId: string, vertical: Vertical, now: number): CheckVerdict | Promise<CheckVerdict> {
    if (!this.subjects.mightContain(provider, accountId)) return CLEAN;
    if (this.sync) return reduceRows(this.sync.subjectRowsNow(provider, accountId), vertical, now);
    const key = `${provider}\0${accountId}`;
    const cached = this.hits.get(key);
    if (cached) return reduceRows(cached, vertical, now);
    return this.missed(key, provider, accountId).then((rows) => reduceRows(rows, vertical, now));
  }

  /** A subject's rows from this turn's look-up of the subjects missed in the cache. */
  private missed(key: string, provider: Provider, accountId: string): Promise<HitRow[]> {
    let misses = this.misses;
    if (!misses) {
      const at = new Map<string, number>();
      const subjects: SubjectKey[] = [];
      // Sent once the turn's requests have all asked; the next miss starts the next turn's look-up.
      const rows = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.misses = null;
        return this.lookUp(at, subjects);
      });
      misses = this.misses = { at, subjects, rows };
    }
    let at = misses.at.get(key);
    if (at === undefined) {
      at = misses.subjects.push([provider, accountId]) - 1;
      misses.at.set(key, at);
    }
    const index = at;
    return misses.rows.then((bySubject) => bySubject[index]!);
  }

  /** Sends a turn's look-up and caches what it answers, unless a drop came while it was out. */
  private async lookUp(at: Map<string, number>, subjects: SubjectKey[]): Promise<HitRow[][]> {
    const generation = this.generation;
    const bySubject = await this.store.subjectRows(subjects);
    if (generation === this.generation) {
      if (this.hits.size + subjects.length > MAX_CACHED_SUBJECTS) this.hits.clear();
      for (const [key, place] of at) this.hits.set(key, bySubject[place]!);
    }
    return bySubject;
  }

  /** The single check, without a promise where the verdict has none (`verdictOf`). */
  checkNow(provider: Provider, rawId: string, vertical: Vertical = "all"): CheckResult | Promise<CheckResult> {
    const id = normalizeAccountId(provider, rawId);
    if (id === null) throw new ServiceError("invalid", `'${rawId.slice(0, 64)}' is not a valid ${provider} user id.`);
    const now = this.clock.now();
    const verdict = this.verdictOf(provider, id, vertical, now);
    return verdict instanceof Promise
      ? verdict.then((v) => checkResult(provider, id, now, v))
      : checkResult(provider, id, now, verdict);
  }

  /** Both batch routes: one independent row per input, in input order. */
  async checkMany(
    accounts: Array<{ provider?: string | null; id?: string | null }>,
    vertical: Vertical = "all",
  ): Promise<{ results: BatchRow[]; checked_at: string }> {
    const now = this.clock.now();
    const results = await Promise.all(
      accounts.map(async (account): Promise<BatchRow> => {
        const provider = typeof account.provider === "string" ? account.provider : null;
        const rawId = typeof account.id === "string" ? account.id : null;
        const id = isProvider(provider) && rawId !== null ? normalizeAccountId(provider, rawId) : null;
        if (!isProvider(provider) || id === null) {
          return { provider, id: rawId, banned: false, error: "invalid_account" };
        }
        const { hit, highRisk, watchlist } = await this.verdictOf(provider, id, vertical, now);
        const row: BatchRow = { provider, id, banned: hit?.severity === "ban" };
        if (highRisk) row.high_risk = true;
        if (watchlist) row.watchlist = true;
        if (hit) {
          row.severity = hit.severity;
          row.scope = hit.scope;
          row.reason_code = hit.reasonCode;
        }
        return row;
      }),
    );
    return { results, checked_at: iso(now) };
  }
}

/** An entry of scope `global` matches every vertical; a `vertical` one matches `all` or its own. */
function matchesVertical(row: HitRow, vertical: Vertical): boolean {
  return row.scope === "global" || vertical === "all" || row.vertical === vertical;
}

/** The most severe confirmed hit among a subject's active rows on `vertical`, unexpired at `now`. */
function reduceRows(rows: HitRow[], vertical: Vertical, now: number): CheckVerdict {
  let hit: HitRow | null = null;
  let highRisk = false;
  let watchlist = false;
  for (const row of rows) {
    if (row.expiresAt !== null && row.expiresAt <= now) continue;
    if (!matchesVertical(row, vertical)) continue;
    if (row.highRisk) highRisk = true;
    if (row.watchlist) {
      watchlist = true;
      continue;
    }
    if (
      !hit ||
      SEVERITY_RANK[row.severity] > SEVERITY_RANK[hit.severity] ||
      (row.severity === hit.severity && (row.issuedAt > hit.issuedAt || (row.issuedAt === hit.issuedAt && row.id > hit.id)))
    ) {
      hit = row;
    }
  }
  return { hit, highRisk, watchlist };
}

function checkResult(provider: Provider, id: string, now: number, { hit, highRisk, watchlist }: CheckVerdict): CheckResult {
  const result: CheckResult = { provider, id, banned: hit?.severity === "ban", checked_at: iso(now) };
  if (hit) {
    result.high_risk = highRisk;
    result.watchlist = watchlist;
    result.severity = hit.severity;
    result.scope = hit.scope;
    result.reason_code = hit.reasonCode;
    result.summary = hit.summary;
    result.appealable = !!hit.appealable;
    result.entry = {
      id: hit.id,
      severity: hit.severity,
      scope: hit.scope,
      vertical: hit.vertical,
      reason_code: hit.reasonCode,
      summary: hit.summary,
    };
    if (hit.source) result.entry.source = hit.source;
  } else if (watchlist || highRisk) {
    result.high_risk = highRisk;
    result.watchlist = watchlist;
  }
  return result;
}
