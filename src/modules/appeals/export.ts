// Appeals in the export (docs/operating.md, "Export and import"), whole and unchanged, after the
// entries they name.
import type { RecordKind } from "../../db/records";
import { appeals } from "./tables";

export const APPEAL_RECORDS: RecordKind[] = [{ type: "appeal", table: appeals, orderBy: "created_at, id" }];
