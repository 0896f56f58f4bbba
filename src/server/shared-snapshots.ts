// The directory index's snapshots (modules/public/directory-snapshot.ts), shared by the workers of
// one `serve --workers N`. Each worker used to read every creator and hold an index of its own
// (about 50 MB each at 100k creators, and a rebuild in every worker after any creator write): now
// one worker builds the snapshot of a `creators_version`, writes it into a file mapped MAP_SHARED,
// and names the file in the shared memory by its pid and descriptor; the others map the same file
// through /proc/<pid>/fd/<fd>. The file is removed as soon as it is created: it lives while some
// process holds it open or mapped, so nothing is left behind however the processes end. A
// snapshot that cannot be found or mapped (its maker died or moved on) is built again here.
import { closeSync } from "node:fs";
import { DirectorySnapshot, type DirectorySnapshotShelf } from "../modules/public/directory-snapshot";
import { createRemovedFile, DIRECTORY_SNAPSHOT_LOCK, type SharedRegion } from "./shared-memory";

/** How often a worker waiting for another's build looks again. */
const POLL_MS = 20;
/** A build takes 1-3 s at 100k creators; past this a waiting worker builds its own (unshared). */
const WAIT_MS = 30_000;

export class SharedDirectorySnapshots implements DirectorySnapshotShelf {
  /** Whether this process holds the lock to make the snapshot. */
  private making = false;
  /** The descriptor of the snapshot this process published last: the others open it through it. */
  private fd: number | null = null;

  constructor(private readonly region: SharedRegion) {}

  async take(version: string): Promise<Uint8Array | null> {
    this.closeSuperseded();
    const deadline = performance.now() + WAIT_MS;
    for (;;) {
      const found = this.published(version);
      if (found) return found;
      if (this.region.tryLock(DIRECTORY_SNAPSHOT_LOCK)) {
        // Published between the look and the lock?
        const late = this.published(version);
        if (late) {
          this.region.unlock(DIRECTORY_SNAPSHOT_LOCK);
          return late;
        }
        this.making = true;
        return null;
      }
      if (performance.now() > deadline) return null;
      await Bun.sleep(POLL_MS);
    }
  }

  publish(bytes: number, write: (into: Uint8Array) => void): Uint8Array {
    if (!this.making) return ownMemory(bytes, write);
    try {
      const fd = createRemovedFile("trustlist-directory-", bytes);
      let mapped: Uint8Array;
      try {
        mapped = Bun.mmap(`/proc/self/fd/${fd}`, { shared: true });
        write(mapped);
      } catch (error) {
        closeSync(fd);
        throw error;
      }
      this.region.directorySnapshot = { pid: process.pid, fd };
      // A worker opening the previous one now finds it gone (or another file there), and looks again.
      this.closeSuperseded();
      this.fd = fd;
      return mapped;
    } catch {
      // No room for the file: this process keeps its snapshot to itself, as a single serve does.
      return ownMemory(bytes, write);
    } finally {
      this.abandon();
    }
  }

  /**
   * Closes the file of this process's last snapshot once another is published: its memory (the
   * file's pages) is freed when the last process mapping it lets go.
   */
  private closeSuperseded(): void {
    if (this.fd === null) return;
    const { pid, fd } = this.region.directorySnapshot;
    if (pid === process.pid && fd === this.fd) return;
    closeSync(this.fd);
    this.fd = null;
  }

  abandon(): void {
    if (!this.making) return;
    this.making = false;
    this.region.unlock(DIRECTORY_SNAPSHOT_LOCK);
  }

  /** The published snapshot when it is of `version`, mapped; null otherwise. */
  private published(version: string): Uint8Array | null {
    const { pid, fd } = this.region.directorySnapshot;
    if (pid === 0) return null;
    try {
      const bytes = Bun.mmap(`/proc/${pid === process.pid ? "self" : pid}/fd/${fd}`, { shared: true });
      return DirectorySnapshot.read(bytes)?.version === version ? bytes : null;
    } catch {
      return null;
    }
  }
}

function ownMemory(bytes: number, write: (into: Uint8Array) => void): Uint8Array {
  const memory = new Uint8Array(bytes);
  write(memory);
  return memory;
}
