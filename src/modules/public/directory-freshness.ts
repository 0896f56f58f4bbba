// What the directory index must catch up on before its next answer: the creators this process
// changed (marked when their write commits, so that no re-read takes the row before the commit),
// the creators another PostgreSQL instance's commit names (CREATORS_NOTE), and, when a commit does
// not say (SQLite's other processes, a PostgreSQL commit too big to list them), whether the
// `creators_version` counter moved, which calls for a rebuild.
import type { Database } from "../../db/database";
import type { MetaStore } from "../../db/meta-store";
import { CREATORS_NOTE } from "../creators/store.shared";

export class CreatorChanges {
  /** Creators to re-read before the next query. */
  readonly dirty = new Set<string>();
  /** The counter as of everything the index reflects or has marked dirty. */
  lastVersion = "";
  /** After another process committed: whether it moved the creators counter (awaited by the next refresh). */
  check: Promise<boolean> | null = null;
  /** This process changed creators in the transaction now open. */
  private ownWrite = false;

  /** `tracking`: whether the index is built or building (before that, its first build reads everything). */
  constructor(
    private readonly database: Pick<Database, "changes" | "afterCommit">,
    private readonly meta: MetaStore,
    private readonly tracking: () => boolean,
  ) {
    const changes = database.changes;
    changes.onExternalCommit((notes) => {
      // Not built nor building: the first build reads everything and the counter itself (a process
      // that never answers the directory, the supervisor of `serve --workers N`, reads nothing).
      if (!this.tracking()) return;
      if (notes !== null) {
        // The creators the commit wrote (none when the topic is absent): re-read before the next query.
        const ids = (notes[CREATORS_NOTE] as string[] | undefined) ?? [];
        for (const id of ids) this.dirty.add(id);
        return;
      }
      // Every write moves the counter, this process's own too; those are recorded as they commit
      // (below), so a moved counter here is another process's change to creators.
      // Compared with the counter as this index knew it now, before a write of its own moves it.
      const known = this.lastVersion;
      const earlier = this.check;
      // A failed read counts as a move: the index is rebuilt rather than left behind.
      this.check = this.readVersion()
        .then(async (version) => version !== known || (earlier !== null && (await earlier)))
        .catch(() => true);
    });
    changes.onOwnCommit(() => {
      if (!this.ownWrite) return;
      this.ownWrite = false;
      // The read itself starts here, before COMMIT (on PostgreSQL inside the transaction); only
      // the assignment waits. A failed read leaves the older value: the next moved counter rebuilds.
      // On PostgreSQL the read may also take in another instance's commit whose notification is
      // still on its way; that matters only for a commit too big to name its creators (notes null).
      void this.readVersion()
        .then((version) => {
          this.lastVersion = version;
        })
        .catch(() => {});
    });
  }

  /**
   * A creator changed (inside a transaction that may still roll back): dirty once it commits. A
   * query meanwhile must not re-read it: on PostgreSQL it would read the row as it was before,
   * and the mark would be spent.
   */
  markDirty(creatorId: string): void {
    this.ownWrite = true;
    this.database.afterCommit(() => {
      if (this.tracking()) this.dirty.add(creatorId);
    });
  }

  /** The counter the creators triggers move on every write (src/db/meta-store.ts). */
  async readVersion(): Promise<string> {
    return (await this.meta.value("creators_version")) ?? "";
  }
}
