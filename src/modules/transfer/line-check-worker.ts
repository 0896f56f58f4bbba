// The thread that checks a large import's lines against their schemas (lines.ts) while the import
// writes them: {path} in; {type: "through", lineNo} now and then, then {type: "done", failure}.
// With `entries` it also prepares the entry lines before `importThreadFrom` and writes them into
// an `EntriesFile`, in file order, which the import then stores in one statement; lines whose start names another kind, and the entries of the file's last part,
// the import thread checks itself.
import { prepareEntryAt } from "../blacklist/service";
import { EntriesFile } from "../blacklist/entries-file";
import { firstSchemaFailure } from "./lines";

declare const self: Worker;

export interface EntriesApart {
  /** Where the `EntriesFile` goes (a new file). */
  file: string;
  /** blacklist_entries' CREATE statement. */
  tableSql: string;
  /** The import's time: each entry's `created_at`, and what `issued_at` may not lie ahead of. */
  now: number;
  /** Where the entry lines the import thread prepares itself begin (`EntriesTaken.before`). */
  importThreadFrom: number;
}

self.onmessage = async (event: MessageEvent<{ path: string; entries?: EntriesApart }>) => {
  const { path, entries } = event.data;
  let file: EntriesFile | null = null;
  try {
    const apart = entries ? (file = new EntriesFile(entries.file, entries.tableSql)) : null;
    const failure = await firstSchemaFailure(
      path,
      (lineNo) => self.postMessage({ type: "through", lineNo }),
      apart === null
        ? undefined
        : {
            take: (line) => apart.add(prepareEntryAt(line, "import", entries!.now, { allowPast: true })),
            before: entries!.importThreadFrom,
          },
    );
    if (failure) apart?.abandon();
    else apart?.finish();
    file = null;
    self.postMessage({ type: "done", failure });
  } catch (error) {
    file?.abandon();
    self.postMessage({ type: "error", message: String(error) });
  }
};
