// COPY ... FROM STDIN through Bun's SQL client: the rows of one write sent as COPY's text format.
// Against a multi-row INSERT over unnest($1::text[], ...) the client skips building and quoting
// an array literal per column (Bun's quoteElement was 15% of an import's client CPU) and the
// server parses plain lines instead of array literals.
import type { SQL } from "bun";

/** A value as COPY's text format writes it; null as \N. */
export type CopyValue = string | number | boolean | null | undefined;

/** Characters COPY's text format escapes: the backslash, the delimiter (tab) and line ends. */
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPED: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function field(value: CopyValue): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value === "number") return String(value);
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPED[c]!) : value;
}

/**
 * Writes `rows` (values in the order of `columns`) into `table` with one COPY on `sql` (a
 * transaction's connection, which runs nothing else until the COPY ends). Rejects with the
 * server's error (a unique violation, text holding U+0000) as an INSERT would.
 */
export async function copyRows(sql: SQL, table: string, columns: readonly string[], rows: ReadonlyArray<readonly CopyValue[]>): Promise<void> {
  if (rows.length === 0) return;
  let text = "";
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) text += (i === 0 ? "" : "\t") + field(row[i]);
    text += "\n";
  }
  const writer = sql.unsafe(`COPY ${table} (${columns.join(", ")}) FROM STDIN`).writable().getWriter();
  // The write's own promise settles with the stream; close() carries the server's answer.
  writer.write(text).catch(() => {});
  await writer.close();
}
