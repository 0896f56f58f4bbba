// @ts-check
// What the bot does about one check result, and what it tells the moderators: a pure function of
// the answer and the server's settings, so it is tested without Discord. Also the words for a
// check that could not be made: they say what happened and what the bot will do, and never quote
// an address or a raw error (a mod-log is read by people who should not learn where trustlist runs).
//
// The four states a trustlist answer can be in (docs/api.md, "Blacklist rules"):
//   banned      an active, confirmed entry of severity `ban`; `banned: true`.
//   restricted  an active, confirmed entry of severity `restrict`; `banned: false`, `severity: "restrict"`.
//   warned      an active, confirmed entry of severity `warn`; `banned: false`, `severity: "warn"`.
//   watchlist   only an unconfirmed external report matches; `banned: false`, `watchlist: true`.
// A watchlist row never makes `banned` true: it is a reason to look, not to act.

/** @typedef {"banned" | "restricted" | "warned" | "watchlist" | "clean"} Verdict */
/** @typedef {"ban" | "kick" | "timeout" | "quarantine" | "alert" | "none"} Action */
/** @typedef {Record<Exclude<Verdict, "clean">, Action>} Actions */

/**
 * The fields of a check the bot reads: a `checkAccount` answer, a `batchCheck` row and a public
 * search hit all have them.
 * @typedef {{ banned: boolean, severity?: string | null, watchlist?: boolean | null, high_risk?: boolean | null,
 *   reason_code?: string | null, summary?: string | null, entry?: { id?: string, summary?: string | null } | null, error?: string | null }} CheckLike
 */

/** @type {Actions} */
export const DEFAULT_ACTIONS = { banned: "ban", restricted: "alert", warned: "alert", watchlist: "alert" };

/**
 * The actions each verdict allows: a ban only for a confirmed ban; and nothing but an alert over an
 * unconfirmed report (no ban, kick, timeout or quarantine).
 * @type {Record<Exclude<Verdict, "clean">, Action[]>}
 */
export const ALLOWED_ACTIONS = {
  banned: ["ban", "kick", "timeout", "quarantine", "alert", "none"],
  restricted: ["kick", "timeout", "quarantine", "alert", "none"],
  warned: ["kick", "timeout", "quarantine", "alert", "none"],
  watchlist: ["alert", "none"],
};

/** Actions the bot can undo when the entry behind them is overturned. */
export const LIFTABLE = ["ban", "timeout", "quarantine"];

/** @type {Record<Verdict, string>} */
export const MEANING = {
  banned: "Banned: a confirmed, active ban on this account.",
  restricted: "Restricted: a confirmed report; not a ban, but limit what this account can do (trades, sales, roles).",
  warned: "Warned: a confirmed minor report; not a ban, keep an eye on this account.",
  watchlist: "Watchlist: an unconfirmed report, not a ban. Look before you act.",
  clean: "No active report on this account.",
};

/** What the bot did, as the mod-log says it. @type {Record<Action, string>} */
export const DOING = {
  ban: "The bot banned the member.",
  kick: "The bot kicked the member.",
  timeout: "The bot timed the member out.",
  quarantine: "The bot gave the member the quarantine role.",
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
  // A setting outside what the verdict allows (a hand-edited state file) alerts instead.
  /** @type {Action} */
  const action = verdict === "clean" ? "none" : ALLOWED_ACTIONS[verdict].includes(actions[verdict]) ? actions[verdict] : "alert";
  const lines = explain(check, options.who);
  if (verdict !== "clean") lines.push(DOING[action]);
  return { verdict, action, reason: reasonOf(check), highRisk: Boolean(check.high_risk), message: lines.join("\n") };
}

/**
 * What kind of failure a check ended in, and whether waiting helps: the SDK's error subclasses by
 * their code and status (no import needed: the bot reads the fields every TrustlistError has).
 * @param {unknown} error
 * @returns {"quota" | "rate" | "outage" | "key" | "refused"}
 */
export function failureKind(error) {
  const e = /** @type {{ code?: string, status?: number }} */ (error ?? {});
  if (e.code === "quota_exceeded") return "quota";
  if (e.code === "rate_limited") return "rate";
  if (e.status === 401 || e.status === 402 || e.status === 403) return "key";
  if (e.status === undefined || e.status === 0 || e.status >= 500 || e.code === "network_error" || e.code === "timeout") return "outage";
  return "refused";
}

/**
 * The moderators' message when a check could not be made: what happened, in words, and what
 * happens next. No action is taken on a member the bot could not check.
 * @param {unknown} error a TrustlistError (status, code, requestId, retryAfter) or anything thrown
 * @param {{ who?: string, retryInMs?: number | null }} [options] `retryInMs`: when the bot checks again (null: it will not)
 */
export function describeFailure(error, options = {}) {
  const e = /** @type {{ code?: string, status?: number, requestId?: string | null, retryAfter?: number | null }} */ (error ?? {});
  const who = options.who ? `${options.who}: ` : "";
  const ref = e.requestId ? ` (request ${e.requestId})` : "";
  const what = {
    quota: "the trustlist key's daily quota is spent",
    rate: "trustlist is rate limiting this key",
    outage: "trustlist did not answer (it may be down or restarting)",
    key: "trustlist refused the bot's key (revoked, mistyped, or its plan does not allow this)",
    refused: `trustlist refused the check${e.code ? ` (${e.code})` : ""}`,
  }[failureKind(error)];
  const next = options.retryInMs == null ? "No action taken." : `No action taken; the bot checks again in ${duration(options.retryInMs)}.`;
  return `${who}not checked: ${what}${ref}. ${next}`;
}

/** `ms` in the largest unit that reads well: "45 s", "12 min", "3 h". @param {number} ms */
export function duration(ms) {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
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
