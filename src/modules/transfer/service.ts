// The import of the JSON Lines format (lines.ts; the export is export.ts). An import is one
// transaction: any bad line aborts it with the line number and nothing is written.
import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Clock } from "../../clock";
import { analyzeTables, beginBulkWrite, dropIndexesAndKeysWhileEmpty, recountNamesAtEndIfLarge } from "../../db/bulk-write";
import type { Database } from "../../db/database";
import { ServiceError } from "../../errors";
import { newId } from "../../ids";
import type { Services } from "../../services";
import { requireHandle } from "../../values";
import { createMembersStore, type MembersStore } from "../accounts/store.members";
import { EntriesApart } from "./entries-apart";
import { insertRow } from "../../db/records";
import { exportAll } from "./export";
import { recordKind, recordRow } from "./records";
import { pipelineKey, pipelineWaitsFor, Windows, windowGroup } from "./windows";
import { type Awaitable, heldWriter, type LineWriter, syncWriter } from "./writers";
import {
  AccountLine,
  AccountMemberLine,
  checkedApart,
  ConnectionLine,
  CreatorLine,
  DealLine,
  EntryLine,
  jsonLines,
  lineError,
  lineProblem,
  plainKind,
  ReferralLine,
  REPEATED_TYPE,
  ReviewLine,
  schemaProblem,
  ServerLine,
  VouchLine,
} from "./lines";

/** Page cache of an import's connection, in KiB: the pages a 1M-entry import writes (about 600 MB) stay in memory until its commit. */
const IMPORT_CACHE_KIB = 1024 * 1024;

/** A JSON line of the format is about this long (an entry line of the bench data set: 250). */
const BYTES_PER_LINE = 250;

/** From this file size on, an import rebuilds the search indexes at its end (about 30k lines). */
const REBUILD_INDEXES_FROM_BYTES = 8 * 1024 * 1024;

/** From this file size on, an import checks its lines' schemas on a second thread (line-checks.ts). */
const CHECK_LINES_APART_FROM_BYTES = 8 * 1024 * 1024;

export interface ImportSummary {
  lines: number;
  /** Lines of the moderation record and the audit log (staff, cases, reports, evidence, comments, mutes, appeals, audit). */
  records: number;
  accounts: number;
  entries: number;
  creators: number;
  connections: number;
  deals: number;
  reviews: number;
  vouches: number;
  referrals: number;
  servers: number;
}

type Counted = Exclude<keyof ImportSummary, "lines">;

/** `then` that stays synchronous for a plain value: the SQLite import's lines never wait. */
function andThen<T, U>(value: Awaitable<T>, next: (value: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function counting(work: unknown, counted: Counted): Awaitable<Counted> {
  return work instanceof Promise ? work.then(() => counted) : counted;
}

/**
 * Lines an import on PostgreSQL loads before its first refresh of the planner's statistics; each
 * later one waits until the lines have doubled (the statistics stay within half of the truth, and
 * the ANALYZEs of a 1.4M-line file are 4 instead of 14: each samples every table anew).
 */
const ANALYZE_EVERY_LINES = 100_000;

export class TransferService {
  private readonly members: MembersStore;

  constructor(
    private readonly database: Database,
    private readonly services: Pick<Services, "accounts" | "blacklist" | "creators" | "network">,
    private readonly clock: Clock,
    private readonly options: { rebuildIndexesFromBytes?: number; checkLinesApartFromBytes?: number } = {},
  ) {
    this.members = createMembersStore(database);
  }

  /**
   * Reads `path` and applies every line in one transaction: a bulk write where the database offers
   * one (db/bulk-write.ts: SQLite), each line awaited otherwise.
   */
  async importFile(path: string): Promise<ImportSummary> {
    // The whole import is one transaction: with the usual 64 MB page cache its dirty pages spill
    // to the WAL and are read back as the indexes grow. Pages are only allocated when used.
    // Every reference an import writes names a row it has just looked up or written itself (a
    // link's creator, a vouch's creators, a feed row's entry), so SQLite checking each one again
    // only cost time: 0.5 s of the feed's 1 s at 1M entries, and a creator look-up per link.
    const bulk = beginBulkWrite(this.database, IMPORT_CACHE_KIB);
    if (bulk === null) return this.importFileAwaiting(path);
    const lines = jsonLines(path);
    const summary = emptySummary();
    const { blacklist, creators } = this.services;
    // Each creator's score is computed once, after every line that feeds it is in, and the change
    // feed is written in one pass at the end; a large file rebuilds the search indexes once
    // instead of updating them line by line.
    creators.beginBulk();
    blacklist.beginBulk();
    const bytes = statSync(path).size;
    // The blacklist's indexes and the suggestion names are rebuilt from the tables only when the
    // file may hold about as many entries as the table already does: that costs in proportion to
    // everything stored.
    const rebuildTables = bytes / BYTES_PER_LINE >= blacklist.storedCount();
    const resumeIndexing =
      bytes >= (this.options.rebuildIndexesFromBytes ?? REBUILD_INDEXES_FROM_BYTES) ? bulk.suspendSearchIndexing({ rebuildTables }) : null;
    // The creators' four rankings are rewritten for every creator by the scores computed after
    // the last line: built once after them instead.
    const resumeCreatorIndexes = resumeIndexing && rebuildTables ? bulk.suspendIndexes(["creators"]) : null;
    // The connections' secondary indexes are built once after the last line, while the second
    // thread (when there is one) may still be preparing entries: nothing before the end reads them.
    const resumeConnectionIndexes = resumeIndexing && rebuildTables ? bulk.suspendIndexes(["connections"]) : null;
    // The creators_version counter only has to move once per commit (the directory index and the
    // change notifier compare it), not on each of the 100k+ creator writes an import makes.
    const moveVersion = await creators.store.holdVersion();
    const creatorIds = new Map<string, string>();
    const writer = syncWriter(this.services);
    // A large file's lines are checked against their schemas on a second thread meanwhile (the
    // checks took 2.4 s of this loop's 16.6 s in a profile of the 1M-entry bench data set). A
    // failure there is the import's error when its line comes first: the first bad line's error
    // either way, and nothing of the file committed. On a single core the second thread would
    // only add its own parse of every line.
    const checkApart = bytes >= (this.options.checkLinesApartFromBytes ?? CHECK_LINES_APART_FROM_BYTES) && availableParallelism() > 1;
    // That thread also prepares most entry lines (entries-apart.ts). With that the larger share,
    // it leaves the lines whose start names another kind (`plainKind`) to this thread, which
    // parses them anyway: their checks are done here.
    let apart: EntriesApart | null = null;
    const firstError = async (error: unknown, lineNo: number) => {
      const failure = await apart?.checks.failureThrough(lineNo);
      return failure ? lineError(failure.lineNo, failure.message) : error;
    };
    let lineNo = 0;
    let resumeSorter: (() => void) | null = null;
    try {
      if (checkApart) apart = new EntriesApart(path, bytes, blacklist, this.clock.now());
      // Where the line begins, in characters of the file (each line with its "\n").
      let at = 0;
      for await (const batch of lines) {
        for (const raw of batch) {
          lineNo++;
          const position = at;
          at += raw.length + 1;
          const text = raw.trim();
          if (text === "") continue;
          summary.lines++;
          const kind = plainKind(text);
          if (apart && kind === "entry" && apart.takenApart(position, lineNo)) {
            summary.entries++;
            continue;
          }
          try {
            const value = parseLine(text, lineNo);
            if (kind !== null && value.type !== kind) throw lineError(lineNo, REPEATED_TYPE);
            if (apart && value.type === "entry") {
              if (!apart.takenApart(position, lineNo)) apart.prepareHere(value, lineNo);
              summary.entries++;
              continue;
            }
            // Only an account line waits for anything: the rest stay on this loop, line after line.
            // A line whose start names its kind is checked here, the others on the second thread.
            const imported = this.importLine(value, lineNo, creatorIds, writer, apart !== null && kind === null);
            const counted = typeof imported === "string" ? imported : await imported;
            summary[counted]++;
          } catch (error) {
            throw await firstError(asLineError(error, lineNo), lineNo);
          }
        }
      }
      // What is left is mostly sorting (the indexes built, the names grouped): in small runs, on
      // every core.
      if (resumeIndexing && rebuildTables) resumeSorter = bulk.sortInRuns(availableParallelism());
      resumeConnectionIndexes?.();
      // Every line but the entries being prepared apart is in: the creators are scored now, but
      // for the penalties the entries bring (`endBulk` below), while the other thread finishes.
      creators.scoreAheadOfEntries();
      resumeCreatorIndexes?.();
      const failure = await apart?.checks.failure();
      if (failure) throw lineError(failure.lineNo, failure.message);
      apart?.storeAll((row) => writer.entry(row), asLineError);
      // The indexes first: the catch-up queries below read through them.
      resumeIndexing?.();
      blacklist.endBulk();
      creators.endBulk();
      await moveVersion();
      bulk.commit();
    } catch (error) {
      blacklist.abandonBulk();
      creators.abandonBulk();
      bulk.rollback();
      throw error;
    } finally {
      await lines.return(undefined);
      await apart?.close();
      resumeSorter?.();
      bulk.release();
    }
    return summary;
  }

  /**
   * The import on PostgreSQL: one `database.write` transaction, each line through the owning
   * modules' awaiting import forms; every creator touched is scored once at the end.
   */
  private async importFileAwaiting(path: string): Promise<ImportSummary> {
    const lines = jsonLines(path);
    const summary = emptySummary();
    const { creators } = this.services;
    const creatorIds = new Map<string, string>();
    const writer = heldWriter(this.services, this.clock);
    try {
      await this.database.write(async () => {
        const moveVersion = await creators.store.holdVersion();
        // A file about as large as what is stored recounts the suggestion names once at its end
        // instead of a trigger's upsert for each creator, link and entry.
        const bytes = statSync(path).size;
        const large = bytes >= (this.options.rebuildIndexesFromBytes ?? REBUILD_INDEXES_FROM_BYTES);
        const recountNames = large ? await recountNamesAtEndIfLarge(this.database, bytes / BYTES_PER_LINE) : null;
        // Empty tables get their secondary indexes and foreign keys made once after the last line
        // instead of row by row: the entries', their feed's and the links' before the scores at the
        // end (which read them), the creators' and their day's scores' after (the scores rewrite
        // every creator's ranked fields and add a snapshot each).
        const rebuildIndexes = large ? await dropIndexesAndKeysWhileEmpty(this.database, ["blacklist_entries", "blacklist_changes", "connections"]) : null;
        const rebuildCreatorIndexes = large ? await dropIndexesAndKeysWhileEmpty(this.database, ["creators", "trust_snapshots"]) : null;
        creators.beginBulk();
        try {
          let lineNo = 0;
          // The lines' own look-ups (a link's creator, an entry's named creators) and the scores
          // at the end read tables this transaction is filling: the planner is told what they hold.
          let linesAtAnalyze = 0;
          const windows = new Windows<Counted>({
            flush: writer.flush,
            counted: (counted) => summary[counted]++,
            landed: async () => {
              if (summary.lines - linesAtAnalyze < Math.max(ANALYZE_EVERY_LINES, linesAtAnalyze)) return;
              await analyzeTables(this.database);
              linesAtAnalyze = summary.lines;
            },
            lineError: asLineError,
          });
          const readLines = async () => {
            for await (const batch of lines) {
              for (const raw of batch) {
                lineNo++;
                const text = raw.trim();
                if (text === "") continue;
                summary.lines++;
                const value = parseLine(text, lineNo);
                const fields = value as { type?: unknown; [field: string]: unknown };
                const key = pipelineKey(fields, lineNo);
                await windows.makeRoom(key, windowGroup(value.type), pipelineWaitsFor(fields));
                try {
                  const work = this.importLine(value, lineNo, creatorIds, writer);
                  if (key === null) summary[await work]++;
                  else windows.add(lineNo, key, work);
                } catch (error) {
                  throw asLineError(error, lineNo);
                }
              }
            }
            await windows.land();
          };
          try {
            await readLines();
          } catch (error) {
            throw await windows.abandon(error);
          }
          await rebuildIndexes?.();
          if (summary.lines > linesAtAnalyze) await analyzeTables(this.database);
          await creators.endBulkAsync();
          await rebuildCreatorIndexes?.();
          await recountNames?.();
          await moveVersion();
        } catch (error) {
          creators.abandonBulk();
          throw error;
        }
      }, { allOrNothing: true });
    } finally {
      await lines.return(undefined);
    }
    return summary;
  }

  /**
   * `creatorIds` holds the creators of earlier lines by handle: a connection line finds its
   * creator there without a read. With the synchronous writer only an account line waits.
   */
  private importLine(
    value: { type?: unknown },
    lineNo: number,
    creatorIds: Map<string, string>,
    writer: LineWriter,
    checkedElsewhere = false,
  ): Counted | Promise<Counted> {
    const { accounts, blacklist } = this.services;
    const now = this.clock.now();
    // Lines `LineChecks` checks are taken as they are: a bad one fails the import before its commit.
    const unchecked = checkedElsewhere && checkedApart(value.type);
    const checked = <T>(check: { Check(v: unknown): v is T } & Parameters<typeof schemaProblem>[0]): T => {
      if (!unchecked && !check.Check(value)) throw lineError(lineNo, schemaProblem(check, value));
      return value as T;
    };
    switch (value.type) {
      case "account":
        return accounts.createAccount(checked(AccountLine)).then(() => "accounts" as const);
      case "account_member": {
        const line = checked(AccountMemberLine);
        const handle = requireHandle(line.handle);
        return accounts.getAccount(line.account).then(
          async (account) => {
            const creatorId = creatorIds.get(handle) ?? (await writer.findCreator(handle))?.id;
            if (creatorId === undefined) throw lineError(lineNo, `creator '${line.handle}' is not defined on an earlier line`);
            await this.members.putMember({ accountId: account.id, creatorId, role: line.role, addedAt: line.added_at === undefined ? now : Date.parse(line.added_at) });
            return "records" as const;
          },
          () => {
            throw lineError(lineNo, `account '${line.account.slice(0, 64)}' is not defined on an earlier line`);
          },
        );
      }
      case "entry":
        return counting(writer.entry(blacklist.prepareEntry(checked(EntryLine), "import", { allowPast: true })), "entries");
      case "creator": {
        const line = checked(CreatorLine);
        const handle = requireHandle(line.handle);
        const id = line.id ?? newId("crt", now);
        // Known from now on: the creator's links may follow in the same window, sent behind it.
        // A handle stored before fails the import at this line, and nothing is kept.
        creatorIds.set(handle, id);
        return andThen(writer.creator(handle, line, now, id), (created) => {
          if (!created) throw lineError(lineNo, `creator '${handle}' appears twice`);
          return "creators" as const;
        });
      }
      case "connection": {
        const line = checked(ConnectionLine);
        const handle = requireHandle(line.creator);
        const link = (creator: { id: string } | null) => {
          if (!creator) throw lineError(lineNo, `creator '${line.creator}' is not defined on an earlier line`);
          return counting(writer.link(creator, line, now), "connections");
        };
        const known = creatorIds.get(handle);
        return known !== undefined ? link({ id: known }) : andThen(writer.findCreator(handle), link);
      }
      case "deal":
        return counting(writer.deal(checked(DealLine), now), "deals");
      case "review":
        return counting(writer.review(checked(ReviewLine), now), "reviews");
      case "vouch":
        return counting(writer.vouch(checked(VouchLine), now), "vouches");
      case "referral":
        return counting(writer.referral(checked(ReferralLine), now), "referrals");
      case "server":
        return counting(writer.server(checked(ServerLine), now), "servers");
      default: {
        const kind = recordKind(value.type);
        if (!kind) throw lineError(lineNo, `unknown type '${String(value.type).slice(0, 32)}'`);
        const row = recordRow(kind, value as Record<string, unknown>);
        if (typeof row === "string") throw lineError(lineNo, row);
        return insertRow(this.database, kind.table, row).then(() => "records" as const);
      }
    }
  }

  /**
   * Writes everything as JSON Lines through `write`, in an order an import accepts, from one
   * snapshot (export.ts); returns the line count.
   */
  exportAll(write: (line: string) => void | Promise<void>): Promise<number> {
    return exportAll(this.database, write);
  }
}

function emptySummary(): ImportSummary {
  return { lines: 0, records: 0, accounts: 0, entries: 0, creators: 0, connections: 0, deals: 0, reviews: 0, vouches: 0, referrals: 0, servers: 0 };
}

/** A non-empty line as a JSON object, or the line's error. */
function parseLine(text: string, lineNo: number): { type?: unknown } {
  let value: any;
  try {
    value = JSON.parse(text);
  } catch {
    throw lineError(lineNo, "not valid JSON");
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw lineError(lineNo, "expected a JSON object");
  return value;
}

/** A line's failure as the error naming its line; other errors as they are. */
function asLineError(error: unknown, lineNo: number): unknown {
  if (error instanceof ServiceError && error.message.startsWith("line ")) return error;
  const problem = lineProblem(error);
  return problem === null ? error : lineError(lineNo, problem);
}
