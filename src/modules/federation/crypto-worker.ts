// A thread that signs or verifies federation feed items (crypto-threads.ts): {id, op: "verify",
// keys: [kid, public key][], text (a feed page's JSON)} answers {id, valid: boolean[]}, one flag per
// item of the page; {id, op: "sign", privateKey, texts} answers {id, sigs: string[]}. It lowers its
// own CPU priority first: a sync is background work, and on a machine short of cores it takes what
// requests leave.
import { lowerThisThreadsPriority, pageSignaturesValid } from "./crypto-threads";
import { signText } from "./signing";

declare const self: Worker;

lowerThisThreadsPriority();

type Job = { id: number; op: "verify"; keys: Array<[string, string]>; text: string } | { id: number; op: "sign"; privateKey: string; texts: string[] };

self.onmessage = (event: MessageEvent<Job>) => {
  const job = event.data;
  if (job.op === "verify") self.postMessage({ id: job.id, valid: pageSignaturesValid(new Map(job.keys), job.text) });
  else self.postMessage({ id: job.id, sigs: job.texts.map((text) => signText(job.privateKey, text)) });
};
