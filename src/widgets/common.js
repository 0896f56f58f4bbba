// Shared by both embed scripts. The server serves each script as one strict-mode function made of
// this file followed by the script's own file, so nothing here reaches the host page's globals.
// Everything the server sends is inserted as text (textContent), never parsed as HTML.

var DONE = "data-trustlist-done";
var THEMES = ["dark", "light"];

/**
 * The script tags of this embed that have no card yet: the running one, and any other tag with the
 * same src (async tags may run in any order, and a browser may run one copy for several tags).
 * Without currentScript, every tag whose path ends with `path`.
 */
function pendingScripts(path) {
  var current = document.currentScript;
  var found = [];
  var tags = document.getElementsByTagName("script");
  for (var i = 0; i < tags.length; i++) {
    var tag = tags[i];
    if (tag.hasAttribute(DONE) || !tag.src) continue;
    var same = current && current.src ? tag.src === current.src : new URL(tag.src).pathname.slice(-path.length) === path;
    if (same) found.push(tag);
  }
  for (var j = 0; j < found.length; j++) found[j].setAttribute(DONE, "");
  return found;
}

/** The server's base URL, from the script's own src: the widget works from a page on any origin. */
function baseOf(script, path) {
  var url = new URL(script.src, location.href);
  return url.origin + url.pathname.slice(0, url.pathname.length - path.length);
}

function themeOf(script) {
  var theme = script.getAttribute("data-theme");
  if (theme === null) return "dark";
  if (THEMES.indexOf(theme) < 0) {
    console.warn('trustlist: unknown data-theme "' + theme + '" ignored; use dark or light.');
    return "dark";
  }
  return theme;
}

/** An element with a class and text; the only way content reaches the card. */
function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// `:host` rules marked !important beat the host page's own !important rules (the inner context
// wins for important declarations), so `* { display: none !important }` cannot hide the card.
var BASE_CSS =
  ":host{all:initial!important;display:block!important;visibility:visible!important;opacity:1!important;margin:8px 0!important;max-width:420px!important}" +
  ".card{box-sizing:border-box;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;border-radius:10px;border:1px solid var(--line);" +
  "background:var(--bg);color:var(--fg);padding:12px 14px;text-align:left}" +
  ".card *{box-sizing:border-box}" +
  ".dark{--bg:#161b22;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--field:#0d1117;--link:#6cb6ff;--bad:#ff8e85;--badbg:#3d1614;--warn:#f2c05c;--warnbg:#3a2a08;--watch:#d2a8ff;--watchbg:#2a1d3d;--ok:#7ee787;--okbg:#12301a;--focus:#6cb6ff}" +
  ".light{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--field:#fff;--link:#0b5cad;--bad:#b42318;--badbg:#fdecea;--warn:#7a4d00;--warnbg:#fff4d6;--watch:#6a35b8;--watchbg:#f3ecff;--ok:#1a6b2c;--okbg:#e9f7ec;--focus:#0b5cad}" +
  "a{color:var(--link);text-underline-offset:2px}" +
  "a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--focus);outline-offset:2px}" +
  ".muted{color:var(--muted)}" +
  ".brand{display:block;margin-top:8px;font-size:12px;color:var(--muted)}" +
  ".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}";

/** A shadow root right after the script tag (in the body when the tag sits in the head). */
function mountCard(script, css) {
  var host = document.createElement("trustlist-card");
  var parent = script.parentNode;
  if (parent && parent !== document.head) parent.insertBefore(host, script.nextSibling);
  else document.body.appendChild(host);
  var root = host.attachShadow({ mode: "open" });
  root.appendChild(el("style", null, BASE_CSS + css));
  return root;
}

/** GET a JSON answer: {status, body, retryAfter}; rejects only when the server cannot be reached. */
function getJSON(url) {
  return fetch(url, { credentials: "omit", headers: { accept: "application/json" } }).then(function (res) {
    return res
      .json()
      .catch(function () {
        return null;
      })
      .then(function (body) {
        return { status: res.status, body: body, retryAfter: Number(res.headers.get("retry-after")) || 0 };
      });
  });
}

/** The message of an error envelope, or a fallback. */
function errorMessage(answer, fallback) {
  var error = answer && answer.body && answer.body.error;
  return error && typeof error.message === "string" ? error.message : fallback;
}
