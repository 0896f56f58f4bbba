// The checkpointer's thread (db/checkpointer.ts): its own connection to the serving database
// copies the WAL back into the database file with PASSIVE checkpoints, which never take the write
// lock and never wait for a reader, so the fsyncs they need happen here and not on the request
// thread. Messages: {type: "start", path, intervalMs} then {type: "stop"}; it answers "ready",
// one "checkpoint" per checkpoint that copied frames, "error", and "stopped".
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";

declare const self: Worker;

export interface CheckpointerStart {
  type: "start";
  path: string;
  intervalMs: number;
}

let connection: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

function start({ path, intervalMs }: CheckpointerStart) {
  connection = new Database(path, { readwrite: true, create: false });
  // PASSIVE never calls the busy handler; this only bounds the open's own schema read.
  connection.exec("PRAGMA busy_timeout = 100");
  const checkpoint = connection.prepare<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
  const wal = `${path}-wal`;
  // The WAL's modification time moves with every commit: an idle server checkpoints nothing.
  let seen = -1;
  timer = setInterval(() => {
    let modified: number;
    try {
      modified = statSync(wal).mtimeMs;
    } catch {
      return; // no WAL yet
    }
    if (modified === seen) return;
    try {
      const result = checkpoint.get()!;
      // A reader's snapshot can hold frames back: try again next tick until all are copied.
      if (result.checkpointed === result.log) seen = modified;
      if (result.checkpointed > 0) self.postMessage({ type: "checkpoint", frames: result.log, copied: result.checkpointed });
    } catch (error) {
      self.postMessage({ type: "error", message: String((error as Error).message ?? error) });
    }
  }, intervalMs);
  self.postMessage({ type: "ready" });
}

self.onmessage = (event: MessageEvent) => {
  const message = event.data as CheckpointerStart | { type: "stop" };
  if (message.type === "start") {
    try {
      start(message);
    } catch (error) {
      self.postMessage({ type: "error", message: String((error as Error).message ?? error) });
    }
    return;
  }
  if (timer) clearInterval(timer);
  connection?.close();
  connection = null;
  self.postMessage({ type: "stopped" });
};
