// Signing and verifying federation feed items off the request thread. An Ed25519 signature costs
// 15-26 us and a verification 55-72 us on the 2-core bench machine (docs/performance.md,
// "Federation"): a page of 500 items is 8-13 ms of signing for the source, and 28-36 ms of
// verifying for a follower that checks each item (one whose page signature verifies checks one
// signature and hashes each item instead), time no request should wait behind. Pages go to up to
// two threads (crypto-worker.ts) in turn, so a follower verifies the next pages on both cores while
// it applies this one; a page is sent as its JSON text (a string crosses threads far cheaper than
// the parsed items do: structured cloning of pages cost the sync thread 9% of a first sync). The
// threads run at the lowest CPU priority where the system allows it: a sync takes the cores that
// requests leave idle, and a machine serving checks meanwhile serves them first.
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { workerEntry } from "../../worker-entry";
import { canonicalJson, pageSignedText, signText, verifyText } from "./signing";

/** Whether each item's `sig` verifies over its canonical JSON without `sig`, with the key its `kid` names. */
export function signaturesValid(keys: Map<string, string>, items: unknown[]): boolean[] {
  return items.map((item) => {
    if (!item || typeof item !== "object") return false;
    const { sig, ...rest } = item as { sig?: unknown; kid?: unknown };
    const publicKey = typeof rest.kid === "string" ? keys.get(rest.kid) : undefined;
    if (publicKey === undefined || typeof sig !== "string") return false;
    try {
      return verifyText(publicKey, canonicalJson(rest), sig);
    } catch {
      return false;
    }
  });
}

/**
 * Whether the page's `page_sig` verifies with the pinned key it names over its items as they are
 * (pageSignedText): then every item is as that key signed it, and its own signature is what the
 * key signed beside it.
 */
function pageSignatureValid(keys: Map<string, string>, pageSig: unknown, items: unknown[]): boolean {
  if (!pageSig || typeof pageSig !== "object") return false;
  const { kid, sig } = pageSig as { kid?: unknown; sig?: unknown };
  const publicKey = typeof kid === "string" ? keys.get(kid) : undefined;
  if (publicKey === undefined || typeof sig !== "string" || items.length === 0) return false;
  const texts: string[] = [];
  const sigs: string[] = [];
  for (const item of items) {
    if (!item || typeof item !== "object") return false;
    const { sig: itemSig, ...rest } = item as { sig?: unknown };
    if (typeof itemSig !== "string") return false;
    try {
      texts.push(canonicalJson(rest));
    } catch {
      return false;
    }
    sigs.push(itemSig);
  }
  return verifyText(publicKey, pageSignedText(texts, sigs), sig);
}

/**
 * `signaturesValid` for the items of a feed page's JSON text; none valid when it is not one. A page
 * whose `page_sig` verifies needs no item checked on its own; otherwise (no page signature, or a
 * page changed on the way) each item is, and the first that fails is found.
 */
export function pageSignaturesValid(keys: Map<string, string>, text: string): boolean[] {
  try {
    const page = JSON.parse(text) as { items?: unknown; page_sig?: unknown };
    if (!Array.isArray(page.items)) return [];
    if (pageSignatureValid(keys, page.page_sig, page.items)) return page.items.map(() => true);
    return signaturesValid(keys, page.items);
  } catch {
    return [];
  }
}

/**
 * Lowers the calling thread's CPU priority to the least (nice 19). Linux lets one thread of a
 * process be reniced by its own id, which /proc/thread-self names; elsewhere, or where the system
 * refuses, the thread keeps the process's priority.
 */
export function lowerThisThreadsPriority(): boolean {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return false;
    setPriority(threadId, 19);
    return true;
  } catch {
    return false;
  }
}

/** Pages below this many items are done on the calling thread: the message costs more than they do. */
const THREAD_MIN_ITEMS = 20;
const THREADS = 2;

/** A feed page a thread read and signed: its items' JSON, its page signature, the last change's seq, whether more follow. */
export interface PageRead {
  items: string;
  /** The page's `page_sig` signature; null for an empty page. */
  pageSig: string | null;
  lastSeq: number;
  hasMore: boolean;
}

/** What the thread needs to read a page: the SQLite file, where to start, and what to sign with. */
export interface PageJob {
  file: string;
  after: number;
  limit: number;
  origin: string;
  kid: string;
  privateKey: string;
}

type Answer = { id: number; valid?: boolean[]; sigs?: string[]; page?: PageRead };

/** Up to two low-priority threads, started on first use; the calling thread when none can be. */
export class CryptoThreads {
  private readonly workers: Worker[] = [];
  private failed = false;
  private turn = 0;
  private next = 0;
  private readonly waiting = new Map<number, (answer: Answer | null) => void>();

  constructor(private size = THREADS) {}

  /** Which items of the feed page `text` (`count` items) verify with `keys` (see signaturesValid). */
  async verifyPage(keys: Map<string, string>, text: string, count: number): Promise<boolean[]> {
    const answer = count >= THREAD_MIN_ITEMS ? await this.send({ op: "verify", keys: [...keys], text }) : null;
    return answer?.valid ?? pageSignaturesValid(keys, text);
  }

  /** Each text's base64url Ed25519 signature with `privateKey`. */
  async sign(privateKey: string, texts: string[]): Promise<string[]> {
    const answer = texts.length >= THREAD_MIN_ITEMS ? await this.send({ op: "sign", privateKey, texts }) : null;
    return answer?.sigs ?? texts.map((text) => signText(privateKey, text));
  }

  /**
   * A feed page read from `job.file` and signed on a thread; null when the page is too small to
   * be worth a message, no thread can take it, or the thread could not read the file (the caller
   * then reads it itself).
   */
  async readPage(job: PageJob): Promise<PageRead | null> {
    if (job.limit < THREAD_MIN_ITEMS) return null;
    return (await this.send({ op: "page", ...job }))?.page ?? null;
  }

  /** The job's answer from the next thread in turn, or null when no thread can take it (then the caller does it). */
  private send(job: object): Promise<Answer | null> {
    const worker = this.pick();
    if (!worker) return Promise.resolve(null);
    const id = ++this.next;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ id, ...job });
    });
  }

  private pick(): Worker | null {
    if (this.failed) return null;
    if (this.workers.length < this.size) {
      try {
        const worker = new Worker(workerEntry("modules/federation/crypto-worker.ts"));
        // Bun's Worker may be unref'd (it never keeps the process alive); the DOM's type lacks it.
        (worker as { unref?: () => void }).unref?.();
        worker.onmessage = (event: MessageEvent<Answer>) => {
          const resolve = this.waiting.get(event.data.id);
          this.waiting.delete(event.data.id);
          resolve?.(event.data);
        };
        worker.onerror = () => {
          // The jobs already sent are done on the calling thread instead, and no thread is used again.
          this.failed = true;
          for (const w of this.workers) w.terminate();
          this.workers.length = 0;
          for (const [id, resolve] of this.waiting) this.waiting.delete(id), resolve(null);
        };
        this.workers.push(worker);
      } catch {
        // No more threads than started: the pool works with the ones it has.
        this.size = this.workers.length;
        if (this.size === 0) this.failed = true;
      }
    }
    if (this.workers.length === 0) return null;
    return this.workers[this.turn++ % this.workers.length]!;
  }
}
