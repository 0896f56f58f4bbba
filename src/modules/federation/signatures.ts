// Checking a feed page's signatures, on a second thread where one can be started (verify-worker.ts)
// and on the calling thread otherwise. An Ed25519 verification costs 50-100 us on the 2-core bench
// machine, more than applying the item: on the second thread the next page is verified while this
// one is applied, and the request thread never waits on it.
import { workerEntry } from "../../worker-entry";
import { canonicalJson, verifyText } from "./signing";

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

/** Pages below this size are verified on the calling thread: the message costs more than they do. */
const WORKER_MIN_ITEMS = 20;

/** A second thread that verifies pages, started on first use; the calling thread when none can be. */
export class SignatureChecker {
  private worker: Worker | null = null;
  private failed = false;
  private next = 0;
  private readonly waiting = new Map<number, (valid: boolean[]) => void>();

  async check(keys: Map<string, string>, items: unknown[]): Promise<boolean[]> {
    const worker = items.length >= WORKER_MIN_ITEMS ? this.start() : null;
    if (!worker) return signaturesValid(keys, items);
    const id = ++this.next;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ id, keys: [...keys], items });
    });
  }

  private start(): Worker | null {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(workerEntry("modules/federation/verify-worker.ts"));
      // Bun's Worker may be unref'd (it never keeps the process alive); the DOM's type lacks it.
      (worker as { unref?: () => void }).unref?.();
      worker.onmessage = (event: MessageEvent<{ id: number; valid: boolean[] }>) => {
        const resolve = this.waiting.get(event.data.id);
        this.waiting.delete(event.data.id);
        resolve?.(event.data.valid);
      };
      worker.onerror = () => {
        // Pages already sent are answered as unverified: their sync stops there and retries later.
        this.failed = true;
        this.worker = null;
        for (const [id, resolve] of this.waiting) resolve([]), this.waiting.delete(id);
      };
      this.worker = worker;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }
}
