// @ts-check
// What the bot does about one check result, and what it tells the moderators: a pure function of
// the answer and the server owner's settings, so it is tested without Discord.
//
// The four states a trustlist answer can be in (docs/api.md, "Blacklist rules"):
//   banned      an active, confirmed entry of severity `ban`; `banned: true`.
//   restricted  an active, confirmed entry of severity `restrict`; `banned: false`, `severity: "restrict"`.
//   warned      an active, confirmed entry of severity `warn`; `banned: false`, `severity: "warn"`.
//   watchlist   only an unconfirmed external report matches; `banned: false`, `watchlist: true`.
// A watchlist row never makes `banned` true: it is a reason to look, not to act.

/** @typedef {"banned" | "restricted" | "warned" | "watchlist" | "clean"} Verdict */
/** @typedef {"ban" | "kick" | "alert" | "none"} Action */
/** @typedef {Record<Exclude<Verdict, "clean">, Action>} Actions */

/**
 * The fields of a check the bot reads: a `checkAccount` answer, a `batchCheck` row and a public
 * search hit all have them.
 * @typedef {{ banned: boolean, severity?: string | null, watchlist?: boolean | null, high_risk?: boolean | null,
 *   reason_code?: string | null, summary?: string | null, entry?: { summary?: string | null } | null, error?: string | null }} CheckLike
 */

/** @type {Actions} */
export const DEFAULT_ACTIONS = { banned: "ban", restricted: "alert", warned: "alert", watchlist: "alert" };

/** The actions each verdict allows: a member is never banned or kicked over an unconfirmed report. */
export const ALLOWED_ACTIONS = {
  banned: ["ban", "kick", "alert", "none"],
  restricted: ["kick", "alert", "none"],
  warned: ["kick", "alert", "none"],
  watchlist: ["alert", "none"],
};

/** @type {Record<Verdict, string>} */
export const MEANING = {
  banned: "Banned: a confirmed, active ban on this account.",
  restricted: "Restricted: a confirmed report; not a ban, but limit what this account can do (trades, sales, roles).",
  warned: "Warned: a confirmed minor report; not a ban, keep an eye on this account.",
  watchlist: "Watchlist: an unconfirmed report, not a ban. Look before you act.",
  clean: "No active report on this account.",
};

/** @type {Record<Action, string>} */
const DOING = {
  ban: "The bot banned the member.",
  kick: "The bot kicked the member.",
  alert: "The bot took no action; moderators were alerted.",
  none: "The bot took no action.",
};

/**
 * @param {CheckLike} check
 * @returns {Verdict}
 */
export function verdictOf(check) {
  if (check.banned) return "banned";
  if (check.severity === "restrict") return "restricted";
  if (check.severity === "warn") return "warned";
  if (check.watchlist) return "watchlist";
  return "clean";
}

/**
 * What an answer means, in the moderators' words: the verdict's meaning, the reason, the high-risk flag.
 * @param {CheckLike} check
 * @param {string} [who] whom the answer is about, shown first
 * @returns {string[]}
 */
export function explain(check, who) {
  const verdict = verdictOf(check);
  const reason = reasonOf(check);
  return [
    `${who ? `${who}: ` : ""}${MEANING[verdict]}`,
    ...(reason ? [`Reason: ${reason}`] : []),
    ...(check.high_risk ? ["Flagged high risk."] : []),
  ];
}

/** @param {CheckLike} check */
function reasonOf(check) {
  const summary = check.entry?.summary ?? check.summary ?? null;
  return check.reason_code ? (summary ? `${check.reason_code}: ${summary}` : check.reason_code) : null;
}

/**
 * @typedef {{ verdict: Verdict, action: Action, reason: string | null, highRisk: boolean, message: string }} Decision
 */

/**
 * What to do about one member and what to tell the moderators.
 * @param {CheckLike} check
 * @param {{ actions?: Actions, who?: string }} [options]
 * @returns {Decision}
 */
export function decide(check, options = {}) {
  const actions = options.actions ?? DEFAULT_ACTIONS;
  const verdict = verdictOf(check);
  /** @type {Action} */
  const action = verdict === "clean" ? "none" : actions[verdict];
  const lines = explain(check, options.who);
  if (verdict !== "clean") lines.push(DOING[action]);
  return { verdict, action, reason: reasonOf(check), highRisk: Boolean(check.high_risk), message: lines.join("\n") };
}

/**
 * The moderators' message when a check could not be made: no action is taken on a member the
 * bot could not check.
 * @param {unknown} error a TrustlistError (status, code, requestId, retryAfter) or anything thrown
 * @param {{ who?: string }} [options]
 */
export function describeFailure(error, options = {}) {
  const e = /** @type {{ code?: string, status?: number, requestId?: string | null, retryAfter?: number | null, message?: string }} */ (error ?? {});
  const who = options.who ? `${options.who}: ` : "";
  const ref = e.requestId ? ` (request ${e.requestId})` : "";
  if (e.code === "quota_exceeded") {
    const hours = e.retryAfter ? Math.ceil(e.retryAfter / 3600) : null;
    return `${who}not checked: the trustlist key's daily quota is spent${hours ? `; it resets in about ${hours} h` : ""}${ref}. No action taken.`;
  }
  if (e.code === "rate_limited") return `${who}not checked: trustlist is rate limiting this key; try again in ${e.retryAfter ?? "a few"} s${ref}. No action taken.`;
  if (e.code === "unauthorized") return `${who}not checked: the trustlist key was refused (revoked or mistyped)${ref}. No action taken.`;
  return `${who}not checked: ${e.message ?? String(error)}${ref}. No action taken.`;
}

/**
 * The answer to `/trustcheck account:…`: each matching platform account with what its state
 * means, or the close names when nothing matched.
 * @param {import("@trustlist/sdk").PublicSearchResult} result
 * @param {number} [limit] hits shown
 */
export function describeSearch(result, limit = 5) {
  if (!result.found || result.platforms.length === 0) {
    const close = result.suggestions?.length ? ` Close names: ${result.suggestions.join(", ")}.` : "";
    return `No trustlist match for "${result.query}".${close}`;
  }
  const hits = result.platforms.slice(0, limit).map((hit) => {
    const name = [hit.platform, hit.username, hit.id ? `(${hit.id})` : null].filter(Boolean).join(" ");
    return explain(hit, name).join("\n");
  });
  const more = result.platforms.length > limit ? [`…and ${result.platforms.length - limit} more.`] : [];
  return [...hits, ...more].join("\n\n");
}
