// The checkpointer's thread (db/checkpointer.ts): its own connection to the serving database
// copies the WAL back into the database file with PASSIVE checkpoints, which never take the write
// lock and never wait for a reader, so the fsyncs they need happen here and not on the request
// thread. A WAL file grown past `keptBytes` by a burst is cut back here too, once every frame is
// copied back and nothing was committed for QUIET_MS, never while writes go on: SQLite fsyncs the
// WAL on the request thread whenever a writer starts it afresh, and after a cut the file grows
// again into newly allocated blocks that fsync must wait for. During a follower's first sync of
// 1M entries (bench machine), cutting it back in each restarting COMMIT held the request thread
// for 109 ms (ftruncate), and cutting it here as soon as possible made the next restart's fsync
// take 391 ms. Messages: {type: "start", path, intervalMs, keptBytes} then {type: "stop"}; it
// answers "ready", one "checkpoint" per checkpoint that copied frames, "truncated" per WAL cut
// back, "error", and "stopped".
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";

declare const self: Worker;

export interface CheckpointerStart {
  type: "start";
  path: string;
  intervalMs: number;
  /** WAL file size kept once its frames are all copied back; a larger file is cut back. */
  keptBytes: number;
}

/** How long nothing must have been committed before a large WAL file is cut back. */
const QUIET_MS = 2_000;

let connection: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

function start({ path, intervalMs, keptBytes }: CheckpointerStart) {
  connection = new Database(path, { readwrite: true, create: false });
  // Bounds the open's own schema read; PASSIVE never calls the busy handler.
  connection.exec("PRAGMA busy_timeout = 100");
  type Outcome = { busy: number; log: number; checkpointed: number };
  const checkpoint = connection.prepare<Outcome, []>("PRAGMA wal_checkpoint(PASSIVE)");
  const truncate = connection.prepare<Outcome, []>("PRAGMA wal_checkpoint(TRUNCATE)");
  const db = connection;
  const truncateUnlessBusy = () => {
    // TRUNCATE waits for the writer and the readers through the busy handler: here it must not
    // wait at all (the serving process retries a write that meets the lock, without sleeping).
    db.exec("PRAGMA busy_timeout = 0");
    try {
      return truncate.get()!.busy === 0;
    } finally {
      db.exec("PRAGMA busy_timeout = 100");
    }
  };
  const wal = `${path}-wal`;
  // The WAL's modification time moves with every commit: an idle server checkpoints nothing.
  // `seen` is the time of a WAL whose every frame was copied back.
  let seen = -1;
  let lastModified = -1;
  let changedAt = Date.now();
  timer = setInterval(() => {
    let file: { mtimeMs: number; size: number };
    try {
      file = statSync(wal);
    } catch {
      return; // no WAL yet
    }
    const modified = file.mtimeMs;
    if (modified !== lastModified) {
      lastModified = modified;
      changedAt = Date.now();
    }
    try {
      if (modified === seen) {
        if (file.size > keptBytes && Date.now() - changedAt >= QUIET_MS && truncateUnlessBusy()) self.postMessage({ type: "truncated" });
        return;
      }
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
