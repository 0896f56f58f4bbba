// What a request's path and query string may hold, decided once for every route: percent-encoded
// UTF-8 that decodes (no bare `%`, no overlong forms, no surrogate halves) and no control
// characters (C0 with NUL, DEL, C1). Handles, ids, usernames, cursors and search text never need
// them, and below the routes they break what takes text as it is (a NUL ends an FTS5 query string
// early; PostgreSQL's text type cannot hold one). conventions.ts refuses such a request with 400
// before any handler runs; the keyed check's fast path hands it to the app, which refuses it the same.
// The badge alone is exempt: it is always an image, and text that cannot be a handle gets the
// neutral badge there (modules/badge).

/** C0 controls (NUL included), DEL and C1 controls. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;

/**
 * Why the path or query of `url` is not text every route can take, for the caller to read; null
 * when it is. A URL without `%` is always fine: the URL parser percent-encodes every control
 * character and every byte outside ASCII, so what is left unescaped is printable ASCII.
 */
export function urlTextProblem(url: string): string | null {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  if (pathStart < 0 || url.indexOf("%", pathStart) < 0) return null;
  const queryStart = url.indexOf("?", pathStart);
  const path = queryStart < 0 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
  const pathProblem = textProblem(path);
  if (pathProblem) return `The path ${pathProblem}.`;
  if (queryStart < 0) return null;
  for (const pair of url.slice(queryStart + 1).split("&")) {
    const equals = pair.indexOf("=");
    const rawName = equals < 0 ? pair : pair.slice(0, equals);
    const nameProblem = textProblem(rawName);
    if (nameProblem) return `A query parameter name ${nameProblem}.`;
    if (equals < 0) continue;
    const valueProblem = textProblem(pair.slice(equals + 1));
    // The name decoded above and holds no control character: safe to quote.
    if (valueProblem) return `Query parameter '${decodeURIComponent(rawName.replaceAll("+", " "))}' ${valueProblem}.`;
  }
  return null;
}

/** What is wrong with one percent-encoded component, or null. */
function textProblem(encoded: string): string | null {
  if (!encoded.includes("%")) return null;
  let text: string;
  try {
    text = decodeURIComponent(encoded);
  } catch {
    return "is not valid percent-encoded UTF-8 (a bare '%', an overlong form or a surrogate half)";
  }
  const control = CONTROL.exec(text);
  if (!control) return null;
  const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
  return `holds the control character U+${code}, which no path or query parameter may hold`;
}
