// A thread that signs or verifies federation feed items, or reads and signs a page of the feed
// (crypto-threads.ts): {id, op: "verify", keys: [kid, public key][], text (a feed page's JSON)}
// answers {id, valid: boolean[]}, one flag per item of the page; {id, op: "sign", privateKey,
// texts} answers {id, sigs: string[]}; {id, op: "page", file, after, limit, origin, kid,
// privateKey} answers {id, page: {items (JSON), pageSig, lastSeq, hasMore}}, or {id} when the file
// cannot be read here. It lowers its own CPU priority first: a sync, and a follower pulling this
// instance's list, are background work, and on a machine short of cores they take what requests
// leave.
import { Database } from "bun:sqlite";
import { keepForThreadReads } from "../../db/pragmas";
import { originChangesOn } from "../blacklist/store.sqlite";
import { lowerThisThreadsPriority, type PageJob, pageSignaturesValid } from "./crypto-threads";
import { itemsJson, pageOf, pageSignature, signedTexts } from "./feed";
import { signText } from "./signing";

declare const self: Worker;

lowerThisThreadsPriority();

type Job =
  | { id: number; op: "verify"; keys: Array<[string, string]>; text: string }
  | { id: number; op: "sign"; privateKey: string; texts: string[] }
  | ({ id: number; op: "page" } & PageJob);

/** Read-only connections, one per file, kept for the next page. */
const readers = new Map<string, Database>();

function readPage(job: PageJob) {
  let reader = readers.get(job.file);
  if (!reader) {
    reader = new Database(job.file, { readonly: true });
    keepForThreadReads(reader);
    readers.set(job.file, reader);
  }
  const { items, lastSeq, hasMore } = pageOf(originChangesOn(reader, job.after, job.limit + 1), job.after, job.limit, job.origin, job.kid);
  const texts = signedTexts(items);
  const sigs = texts.map((text) => signText(job.privateKey, text));
  return { items: itemsJson(items, sigs), pageSig: pageSignature(job.privateKey, texts, sigs), lastSeq, hasMore };
}

self.onmessage = (event: MessageEvent<Job>) => {
  const job = event.data;
  if (job.op === "verify") self.postMessage({ id: job.id, valid: pageSignaturesValid(new Map(job.keys), job.text) });
  else if (job.op === "sign") self.postMessage({ id: job.id, sigs: job.texts.map((text) => signText(job.privateKey, text)) });
  else {
    let page: ReturnType<typeof readPage> | undefined;
    try {
      page = readPage(job);
    } catch {
      // The file could not be opened or read here: the request thread reads the page instead.
      readers.get(job.file)?.close();
      readers.delete(job.file);
    }
    self.postMessage({ id: job.id, page });
  }
};
