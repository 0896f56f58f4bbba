// Each kind of line's write for the import (service.ts): synchronous on SQLite (the tuned import,
// `syncWriter`), held and written a window at a time on PostgreSQL (`heldWriter`, windows.ts).
import type { Clock } from "../../clock";
import { conflict } from "../../errors";
import type { Services } from "../../services";
import type { EntryRow } from "../blacklist/service";
import type { NewConnection, NewCreator } from "../creators/service";
import type { ConnectionLine, CreatorLine, DealLine, Line, ReferralLine, ReviewLine, ServerLine, VouchLine } from "./lines";

export type Awaitable<T> = T | Promise<T>;

type ImportServices = Pick<Services, "blacklist" | "creators" | "network">;

/** The write of each kind of line but accounts (which always await their service). */
export interface LineWriter {
  entry(row: EntryRow): Awaitable<unknown>;
  /** False when the handle is already stored. */
  creator(handle: string, line: Line<typeof CreatorLine>, now: number, id: string): Awaitable<boolean>;
  findCreator(handle: string): Awaitable<{ id: string } | null>;
  link(creator: { id: string }, line: Line<typeof ConnectionLine>, now: number): Awaitable<unknown>;
  deal(line: Line<typeof DealLine>, now: number): Awaitable<unknown>;
  review(line: Line<typeof ReviewLine>, now: number): Awaitable<unknown>;
  vouch(line: Line<typeof VouchLine>, now: number): Awaitable<unknown>;
  referral(line: Line<typeof ReferralLine>, now: number): Awaitable<unknown>;
  server(line: Line<typeof ServerLine>, now: number): Awaitable<unknown>;
  /** Writes what the writer holds back (a window's entries, creators and links, written together); each line's answer settles then. */
  flush?(): Promise<void>;
}

/** The writer of the import on SQLite: every line written as it is read, without a promise. */
export function syncWriter(services: ImportServices): LineWriter {
  const { blacklist, creators, network } = services;
  return {
    entry: (row) => blacklist.storeEntry(row, false),
    creator: (handle, line, now, id) => creators.upsertNow(handle, line, now, id),
    findCreator: (handle) => creators.findNow(handle),
    link: (creator, line, now) => creators.linkNow(creator, line, now),
    deal: (line, now) => network.dealNow(line, now),
    review: (line, now) => network.reviewNow(line, now),
    vouch: (line, now) => network.vouchNow(line, now),
    referral: (line, now) => network.referNow(line, now),
    server: (line, now) => network.registerServerNow(line, "import", now),
  };
}

/** The writer of the import on PostgreSQL, whose lines are held until their window lands (`flush`). */
export function heldWriter(services: ImportServices, clock: Clock): LineWriter {
  const { blacklist, creators, network } = services;
  // A window's lines are written together when it lands: its entries in one statement (and their
  // feed rows in another), its creators in one and their links in another. A statement a line
  // was most of the import's time here.
  const held: Array<{ row: EntryRow; settle: (error?: unknown) => void }> = [];
  const heldCreators: Array<{ row: NewCreator; settle: (outcome: boolean | Error) => void }> = [];
  const heldLinks: Array<{ link: NewConnection; input: Line<typeof ConnectionLine>; settle: (error: Error | null) => void }> = [];
  // Look-ups of the creators of links whose creator came before this window: a link is held
  // once its creator is found, so the window's flush waits for them first.
  const finding: Array<Promise<unknown>> = [];
  // A window's reviews wait for its deals (windows.ts: they share windows): each is written once
  // every deal sent before it has been, and reads the completed deal it is of.
  const dealsSent: Array<Promise<unknown>> = [];
  const heldReviews: Array<{ line: Line<typeof ReviewLine>; now: number; settle: (error?: unknown) => void }> = [];
  const flushReviews = async () => {
    const deals = await Promise.allSettled(dealsSent.splice(0));
    const reviews = heldReviews.splice(0);
    // A failed deal fails the import at its line, and on PostgreSQL its error ends the
    // transaction: the reviews are not written, and settle without an error of their own.
    if (deals.some((deal) => deal.status === "rejected")) {
      for (const review of reviews) review.settle();
      return;
    }
    await Promise.all(reviews.map((review) => network.reviewImported(review.line, review.now).then(() => review.settle(), review.settle)));
  };
  const flushEntries = async () => {
    const batch = held.splice(0);
    if (batch.length === 0) return;
    let duplicate: number;
    try {
      duplicate = await blacklist.importEntries(batch.map((b) => b.row));
    } catch (error) {
      for (const b of batch) b.settle(error);
      return;
    }
    batch.forEach((b, i) => b.settle(i === duplicate ? conflict(`Entry ${b.row.id} already exists.`) : undefined));
  };
  const flushCreators = async () => {
    const batch = heldCreators.splice(0);
    const links = heldLinks.splice(0);
    if (batch.length === 0 && links.length === 0) return;
    let stored: Awaited<ReturnType<typeof creators.storeImported>>;
    try {
      stored = await creators.storeImported(
        batch.map((b) => b.row),
        links.map(({ link, input }) => ({ link, input })),
        clock.now(),
      );
    } catch (error) {
      for (const b of batch) b.settle(error as Error);
      for (const l of links) l.settle(error as Error);
      return;
    }
    batch.forEach((b, i) => b.settle(stored.creators[i]!));
    links.forEach((l, i) => l.settle(stored.links[i] ?? null));
  };
  return {
    entry: (row) =>
      new Promise<void>((resolve, reject) => {
        held.push({ row, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      }),
    flush: async () => {
      if (finding.length > 0) await Promise.allSettled(finding.splice(0));
      await flushEntries();
      await flushCreators();
      await flushReviews();
    },
    creator: (handle, line, now, id) => {
      const row = creators.prepareImported(handle, line, now, id);
      return new Promise<boolean>((resolve, reject) => {
        heldCreators.push({ row, settle: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)) });
      });
    },
    findCreator: (handle) => {
      const found = creators.find(handle);
      finding.push(found);
      return found;
    },
    link: (creator, line, now) => {
      const link = creators.prepareImportedLink(creator, line, now);
      return new Promise<void>((resolve, reject) => {
        heldLinks.push({ link, input: line, settle: (error) => (error === null ? resolve() : reject(error)) });
      });
    },
    deal: (line, now) => {
      const sent = network.dealImported(line, now);
      dealsSent.push(sent);
      return sent;
    },
    review: (line, now) =>
      new Promise<void>((resolve, reject) => {
        heldReviews.push({ line, now, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      }),
    vouch: (line, now) => network.vouchImported(line, now),
    referral: (line, now) => network.referImported(line, now),
    server: (line, now) => network.registerServerImported(line, "import", now),
  };
}
