// `trustlist import FILE` and `trustlist export [--out FILE]`: JSON Lines (modules/transfer).
import { chmodSync, closeSync, existsSync, openSync } from "node:fs";
import { TransferService } from "../modules/transfer/service";
import { type Command, print, text, UsageError, withDatabase } from "./args";

export const transferCommands: Command[] = [
  {
    name: "import",
    summary: "load a JSON Lines file in one transaction: all of it or, on any bad line, nothing",
    args: ["FILE"],
    flags: [],
    examples: ["trustlist import communities.jsonl --db ./data/trustlist.db"],
    async run({ values, positionals }) {
      const file = positionals[0]!;
      if (!existsSync(file)) throw new UsageError(`${file}: no such file`);
      // A new database is created with the schema; an existing one must already be migrated. The
      // import writes a scratch file to the temporary directory anyway: its sorts may use it too.
      const open = { create: true, migrations: "apply-if-empty", temporaryFiles: true } as const;
      const { summary, seconds } = await withDatabase(
        values,
        async ({ store, services, runtime }) => {
          const started = performance.now();
          const summary = await new TransferService(store, services, runtime.clock).importFile(file);
          return { summary, seconds: (performance.now() - started) / 1000 };
        },
        open,
      );
      const counts = Object.entries(summary)
        .filter(([kind, n]) => kind !== "lines" && n > 0)
        .map(([kind, n]) => `${n} ${kind}`);
      print(values.json, { ...summary, seconds }, `imported ${counts.join(", ") || "nothing"} from ${summary.lines} lines in ${seconds.toFixed(1)} s`);
    },
  },
  {
    name: "export",
    summary: "write every record as JSON Lines, the format import reads",
    flags: [{ name: "out", kind: "string", value: "FILE", help: "write here (created readable by its owner only)", default: "stdout" }],
    examples: ["trustlist export --out trustlist-2026-11-23.jsonl"],
    async run({ values }) {
      const outFile = text(values.out);
      const count = await withDatabase(values, async ({ store, services, runtime }) => {
        // The file holds what the database holds: create it owner-only.
        // (The mode given to open applies to a new file only: an existing one is tightened too.)
        if (outFile !== undefined) {
          closeSync(openSync(outFile, "w", 0o600));
          chmodSync(outFile, 0o600);
        }
        const out = outFile !== undefined ? Bun.file(outFile).writer() : Bun.stdout.writer();
        const lines = await new TransferService(store, services, runtime.clock).exportAll((line) => {
          out.write(line + "\n");
        });
        await out.end();
        return lines;
      });
      if (outFile !== undefined) print(values.json, { lines: count, out: outFile }, `exported ${count} lines to ${outFile}`);
    },
  },
];
