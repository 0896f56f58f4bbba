// /widget.js: a trust-check card with its own input, placed right after its script tag:
//   <script src="BASE/widget.js" data-platform="roblox|uefn|minecraft" data-theme="dark|light" async></script>
// It asks GET /v1/public/blacklist/check?q= and shows each matching account's state. A platform
// hint keeps that platform's accounts (and trustlist profiles) and names the platform in the card.

var CHECK_PATH = "/widget.js";
// Hint -> the provider its accounts live on, and the word shown.
var PLATFORMS = {
  roblox: { provider: "roblox", name: "Roblox" },
  uefn: { provider: "epic", name: "UEFN (Epic)" },
  minecraft: { provider: "minecraft", name: "Minecraft" },
};
var PROVIDER_NAMES = {
  trustlist: "trustlist profile", discord: "Discord", roblox: "Roblox", epic: "Epic", minecraft: "Minecraft",
  youtube: "YouTube", twitch: "Twitch", twitter: "X (Twitter)", tiktok: "TikTok", github: "GitHub",
};
// What each state means, said plainly.
var STATES = {
  banned: { cls: "bad", title: "Banned", text: "Confirmed ban on trustlist." },
  restricted: { cls: "warn", title: "Restricted", text: "Confirmed restriction: trade with care." },
  warned: { cls: "warn", title: "Warned", text: "Confirmed warning on record." },
  watchlist: { cls: "watch", title: "Watchlist", text: "Unconfirmed report, not a ban." },
  clean: { cls: "ok", title: "No record", text: "No blacklist entry for this account." },
};
var RANK = ["clean", "watchlist", "warned", "restricted", "banned"];
var APPEAL_TEXT =
  "This listing can be appealed. If it names you, use /appeal with this community's Discord bot, or sign in and appeal it from your account (POST /v1/me/appeals).";

var CHECK_CSS =
  "h2{font-size:16px;margin:0 0 8px;font-weight:650}" +
  "form{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}" +
  "label{display:block;width:100%;font-weight:600}" +
  "input{flex:1 1 160px;min-width:0;font:inherit;color:var(--fg);background:var(--field);border:1px solid var(--muted);border-radius:6px;padding:7px 9px}" +
  "button{font:inherit;font-weight:650;color:#fff;background:#0b5cad;border:0;border-radius:6px;padding:8px 14px;cursor:pointer}" +
  "button[disabled]{opacity:.7;cursor:progress}" +
  ".hint{margin:4px 0 0;font-size:13px}" +
  ".out{margin-top:10px}" +
  ".out:empty{display:none}" +
  ".verdict{margin:0 0 8px;padding:8px 10px;border-radius:8px;border-left:5px solid currentColor}" +
  ".verdict strong{display:block;font-size:15px}" +
  ".bad{color:var(--bad);background:var(--badbg)}" +
  ".warn{color:var(--warn);background:var(--warnbg)}" +
  ".watch{color:var(--watch);background:var(--watchbg)}" +
  ".ok{color:var(--ok);background:var(--okbg)}" +
  ".none{color:var(--fg);border:1px dashed var(--line);border-left-width:5px}" +
  "ul{list-style:none;margin:0;padding:0}" +
  "li.hit{padding:6px 0;border-top:1px solid var(--line);overflow-wrap:anywhere}" +
  ".tag{display:inline-block;margin-right:6px;padding:0 6px;border-radius:4px;font-size:12px;font-weight:650}" +
  ".summary{display:block;margin-top:2px}" +
  ".appeal{font-size:13px}" +
  ".suggest{display:flex;flex-wrap:wrap;gap:6px;margin-top:6px}" +
  ".suggest button{color:var(--link);background:transparent;border:1px solid var(--line);padding:2px 8px;font-weight:500}";

/** The state of one hit, by what the API says. */
function stateOf(hit) {
  if (hit.banned) return "banned";
  if (hit.severity === "restrict") return "restricted";
  if (hit.severity === "warn") return "warned";
  if (hit.watchlist) return "watchlist";
  return "clean";
}

function renderCheckCard(script, index) {
  var base = baseOf(script, CHECK_PATH);
  var hint = script.getAttribute("data-platform");
  var platform = null;
  if (hint !== null) {
    if (Object.prototype.hasOwnProperty.call(PLATFORMS, hint)) platform = PLATFORMS[hint];
    else console.warn('trustlist: unknown data-platform "' + hint + '" ignored; use roblox, uefn or minecraft.');
  }
  var id = "trustlist-check-" + index;
  var root = mountCard(script, CHECK_CSS);
  var card = el("section", "card " + themeOf(script));
  var heading = el("h2", null, platform ? "Check a " + platform.name + " account" : "Check an account");
  heading.id = id + "-title";
  card.setAttribute("aria-labelledby", heading.id);
  var form = el("form");
  form.setAttribute("role", "search");
  form.noValidate = true;
  var label = el("label", null, platform ? platform.name + " username or id" : "Username, handle or id");
  var input = el("input");
  input.id = id + "-q";
  label.htmlFor = input.id;
  input.type = "search";
  input.name = "q";
  input.maxLength = 64;
  input.autocomplete = "off";
  input.spellcheck = false;
  var button = el("button", null, "Check");
  button.type = "submit";
  var help = el("p", "hint muted", "Searches the trustlist blacklist and creator profiles.");
  help.id = id + "-help";
  input.setAttribute("aria-describedby", help.id);
  // Announced to screen readers whenever it changes: loading, results and errors.
  var out = el("div", "out");
  out.setAttribute("role", "status");
  out.setAttribute("aria-live", "polite");
  form.appendChild(label);
  form.appendChild(input);
  form.appendChild(button);
  card.appendChild(heading);
  card.appendChild(form);
  card.appendChild(help);
  card.appendChild(out);
  card.appendChild(el("span", "brand", "Trust data by trustlist"));
  root.appendChild(card);

  var verdict = function (cls, title, text) {
    var box = el("div", "verdict " + cls);
    box.appendChild(el("strong", null, title));
    if (text) box.appendChild(el("span", null, text));
    return box;
  };
  var busy = function (on) {
    button.disabled = on;
    if (on) out.setAttribute("aria-busy", "true");
    else out.removeAttribute("aria-busy");
  };
  var showOnly = function (node) {
    out.textContent = "";
    out.appendChild(node);
  };

  var check = function (q) {
    busy(true);
    input.removeAttribute("aria-invalid");
    showOnly(el("p", "muted", "Checking “" + q + "”…"));
    getJSON(base + "/v1/public/blacklist/check?q=" + encodeURIComponent(q)).then(
      function (answer) {
        busy(false);
        if (answer.status === 429) {
          var wait = answer.retryAfter ? " Try again in " + answer.retryAfter + " second" + (answer.retryAfter === 1 ? "" : "s") + "." : " Try again shortly.";
          return showOnly(verdict("none", "Too many checks", "This network made too many checks." + wait));
        }
        if (answer.status !== 200 || !answer.body) {
          if (answer.status === 400) input.setAttribute("aria-invalid", "true");
          return showOnly(verdict("none", "Check failed", errorMessage(answer, "The server answered " + answer.status + ".")));
        }
        showResult(answer.body, q);
      },
      function () {
        busy(false);
        showOnly(verdict("none", "Check failed", "Could not reach trustlist. Check the connection and try again."));
      },
    );
  };

  var showResult = function (result, q) {
    var all = result.platforms || [];
    var hits = platform
      ? all.filter(function (hit) {
          return hit.platform === platform.provider || hit.platform === "trustlist";
        })
      : all;
    out.textContent = "";
    if (hits.length === 0) {
      var where = platform ? "No " + platform.name + " account or trustlist profile" : "Nothing";
      out.appendChild(verdict("none", "Not found", where + " matches “" + q + "”. Not being listed is not proof of trust."));
      if (platform && all.length > 0) {
        var elsewhere = [];
        all.forEach(function (hit) {
          var name = PROVIDER_NAMES[hit.platform] || hit.platform;
          if (elsewhere.indexOf(name) < 0) elsewhere.push(name);
        });
        out.appendChild(el("p", "muted", "Found on " + (elsewhere.length === 1 ? "another platform: " : "other platforms: ") + elsewhere.join(", ") + "."));
      }
      var names = result.suggestions || [];
      if (names.length > 0) {
        out.appendChild(el("p", "muted", "Did you mean:"));
        var list = el("div", "suggest");
        names.forEach(function (name) {
          var pick = el("button", null, name);
          pick.type = "button";
          pick.addEventListener("click", function () {
            input.value = name;
            check(name);
          });
          list.appendChild(pick);
        });
        out.appendChild(list);
      }
      return;
    }
    var worst = "clean";
    hits.forEach(function (hit) {
      if (RANK.indexOf(stateOf(hit)) > RANK.indexOf(worst)) worst = stateOf(hit);
    });
    var state = STATES[worst];
    out.appendChild(verdict(state.cls, state.title, state.text));
    var list = el("ul");
    list.setAttribute("aria-label", hits.length + " matching account" + (hits.length === 1 ? "" : "s"));
    hits.forEach(function (hit) {
      var s = STATES[stateOf(hit)];
      var item = el("li", "hit");
      // Spaces between the parts, so they are read (and copied) as separate words.
      item.appendChild(el("span", "tag " + s.cls, s.title));
      item.appendChild(document.createTextNode(" "));
      if (hit.high_risk) {
        item.appendChild(el("span", "tag bad", "High risk"));
        item.appendChild(document.createTextNode(" "));
      }
      var who = hit.username ? hit.username : hit.id;
      item.appendChild(el("strong", null, (PROVIDER_NAMES[hit.platform] || hit.platform) + ": " + (who || "unknown")));
      if (hit.username && hit.id) item.appendChild(el("span", "muted", " (id " + hit.id + ")"));
      if (hit.reason_code) item.appendChild(el("span", "summary muted", "Reason: " + hit.reason_code));
      if (hit.summary) item.appendChild(el("span", "summary", hit.summary));
      // Only a confirmed entry the listed person may appeal says how; nothing names the entry or who reported.
      if (hit.appealable && hit.severity) item.appendChild(el("span", "summary appeal", APPEAL_TEXT));
      list.appendChild(item);
    });
    out.appendChild(list);
  };

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var q = input.value.trim();
    if (!q) {
      input.setAttribute("aria-invalid", "true");
      showOnly(verdict("none", "Nothing to check", "Type a username, handle or id first."));
      input.focus();
      return;
    }
    check(q);
  });
}

var checkTags = pendingScripts(CHECK_PATH);
for (var c = 0; c < checkTags.length; c++) renderCheckCard(checkTags[c], document.querySelectorAll("trustlist-card").length);
