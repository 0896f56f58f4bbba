// How the import on PostgreSQL groups lines into windows: the lines it sends before waiting for
// their answers, one round trip a window instead of several a line (service.ts, importFileAwaiting).

/** Lines an import on PostgreSQL sends in one window before waiting for their answers. */
export const PIPELINED_LINES = 500;

/**
 * The kinds of line that may share a window. A creator and its links do: the creator's insert is
 * sent as its line is read, before any read, so the links sent behind it find it (the data set
 * alternates creator and link lines every two to five lines, and a window each cost a round trip
 * a run). Every other kind has windows of its own.
 */
export function windowGroup(type: unknown): unknown {
  return type === "connection" ? "creator" : type;
}

/**
 * What a line of a pipelined kind must not share with another line of its window (two lines with
 * one key run one after the other); null for a kind that runs alone (accounts, servers, unknown).
 */
export function pipelineKey(value: { type?: unknown; [field: string]: unknown }, lineNo: number): string | null {
  const name = (field: unknown) => String(field ?? "").trim().replace(/^@/, "").toLowerCase();
  switch (value.type) {
    case "entry":
      return `entry:${value.id ?? lineNo}`;
    case "creator":
      return name(value.handle);
    case "connection":
      return `${name(value.provider)}:${name(value.provider_user_id)}`;
    case "deal":
      return `deal:${value.id ?? lineNo}`;
    case "review":
    case "vouch":
      return `${name(value.from)}>${name(value.to)}`;
    case "referral":
      return name(value.referred);
    default:
      return null;
  }
}
