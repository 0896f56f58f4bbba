// `trustlist audit`: the audit log at the command line (docs/moderation.md, "The audit log").
import { type Command, print, text, UsageError, withDatabase } from "./args";

export const auditCommands: Command[] = [
  {
    name: "audit",
    summary: "read the audit log, newest first",
    flags: [
      { name: "entry", kind: "string", value: "ID", help: "only events about this entry" },
      { name: "subject", kind: "string", value: "P:ID", help: "only events about this subject (discord:123…, creator:handle)" },
      { name: "actor", kind: "string", value: "K:ID", help: "only events by this actor (staff:alicemod, key:key_…, cli:root, job:expiry)" },
      { name: "action", kind: "string", value: "A", help: "only events of this action (entry.added, case.decided, …)" },
      { name: "limit", kind: "string", value: "N", help: "events to show, 1-1000", default: "50" },
    ],
    examples: ["trustlist audit --entry bl_01kdvdna009aqnt2ae7ejrkvaj", "trustlist audit --subject discord:80351110224678912 --json"],
    async run({ values }) {
      const limit = Number(text(values.limit) ?? "50");
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError("--limit: give a whole number from 1 to 1000");
      const query = { entry: text(values.entry), subject: text(values.subject), actor: text(values.actor), action: text(values.action) };
      const events = await withDatabase(values, async ({ services }) => {
        const all = [];
        let cursor: string | undefined;
        // Pages of at most 200 (the route's limit) until `limit` events are read.
        while (all.length < limit) {
          const page = await services.audit.list({ ...query, cursor, limit: Math.min(200, limit - all.length) });
          all.push(...page.data);
          if (!page.next_cursor) break;
          cursor = page.next_cursor;
        }
        return all;
      });
      const line = (e: (typeof events)[number]) =>
        [e.at, `${e.actor.kind}:${e.actor.id}`, e.action, e.entry_id ?? e.case_id ?? e.appeal_id ?? "", e.subject ?? "", JSON.stringify(e.details)].filter(Boolean).join("  ");
      print(values.json, { data: events }, events.map(line).join("\n") || "no events");
    },
  },
];
