// Values both moderation stores need (store.sqlite.ts, store.postgres.ts) and the contract's types.

/** Evidence without its bytes: what lists show. */
export const EVIDENCE_META_FIELDS = ["id", "reportId", "sha256", "bytes", "contentType", "public", "entryId", "createdAt"] as const;
