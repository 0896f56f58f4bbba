// What both databases' blacklist stores and the service share at run time (store.ts holds only
// the contract, so neither implementation imports a value back from it).

/** The columns a check reads of a subject's active rows: the answer's ingredients and no more. */
export const HIT_FIELDS = [
  "id",
  "severity",
  "scope",
  "vertical",
  "reasonCode",
  "summary",
  "issuedAt",
  "expiresAt",
  "appealable",
  "highRisk",
  "watchlist",
  "source",
] as const;

/** The columns that name an account and the username an entry gives it (`SubjectName`). */
export const SUBJECT_FIELDS = ["provider", "providerUserId", "username"] as const;

/** The notification topic of subjects given an active row, as [provider, provider_user_id]. */
export const SUBJECTS_NOTE = "blacklist.subjects";
