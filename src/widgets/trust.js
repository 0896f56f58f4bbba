// /widget/trust.js: a trust card for one public handle, placed right after its script tag:
//   <script src="BASE/widget/trust.js" data-handle="name" data-theme="dark|light" async></script>
// Band, tier colour and blacklisted state come from GET /v1/public/trust/{handle}; the display
// name and verification label from the creator's directory row, when the directory lists it.

// VERIFICATION (the labels of levels 0-4) is defined by the server from the API's own list.
var TRUST_PATH = "/widget/trust.js";
var HANDLE = /^[a-z0-9_.]{2,32}$/;

var TRUST_CSS =
  ".card{border-left:6px solid var(--tier,#9f9f9f)}" +
  ".name{display:block;font-weight:650;font-size:16px;overflow-wrap:anywhere}" +
  ".handle{display:block;overflow-wrap:anywhere}" +
  ".facts{display:flex;flex-wrap:wrap;gap:6px 14px;margin:8px 0 6px;padding:0;list-style:none}" +
  ".dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;background:var(--tier,#9f9f9f);vertical-align:baseline}" +
  ".tier{font-weight:650}" +
  ".state{display:block;margin:6px 0;padding:4px 8px;border-radius:6px;font-weight:600}" +
  ".bad{color:var(--bad);background:var(--badbg)}" +
  ".ok{color:var(--ok);background:var(--okbg)}" +
  ".unknown{color:var(--muted);border:1px dashed var(--line)}";

function renderTrustCard(script) {
  var base = baseOf(script, TRUST_PATH);
  var requested = (script.getAttribute("data-handle") || "").trim().replace(/^@/, "");
  var handle = requested.toLowerCase();
  var root = mountCard(script, TRUST_CSS);
  var card = el("section", "card " + themeOf(script));
  card.setAttribute("aria-label", "trustlist trust card for @" + requested);
  card.setAttribute("aria-busy", "true");
  card.appendChild(el("span", "muted", "Checking @" + requested + "…"));
  root.appendChild(card);

  var show = function (parts, tierColor) {
    card.textContent = "";
    if (tierColor) card.style.setProperty("--tier", tierColor);
    for (var i = 0; i < parts.length; i++) card.appendChild(parts[i]);
    card.appendChild(el("span", "brand", "Trust data by trustlist"));
    card.removeAttribute("aria-busy");
  };
  var notListed = function () {
    show([el("span", "name", "@" + requested), el("span", "state unknown", "Not verified: no trustlist profile with this handle")]);
  };

  if (!HANDLE.test(handle)) {
    if (!requested) console.warn("trustlist: trust.js needs a data-handle attribute.");
    return notListed();
  }
  var trust = getJSON(base + "/v1/public/trust/" + encodeURIComponent(handle));
  // The directory is the keyless source of the display name and verification level; a failure
  // there only leaves them out.
  var directory = getJSON(base + "/v1/public/directory?limit=100&q=" + encodeURIComponent(handle)).catch(function () {
    return null;
  });
  Promise.all([trust, directory]).then(
    function (answers) {
      var answer = answers[0];
      if (answer.status !== 200 || !answer.body) {
        var wait = answer.status === 429 && answer.retryAfter ? " Try again in " + answer.retryAfter + " s." : "";
        return show([el("span", "name", "@" + requested), el("span", "state unknown", "Trust data unavailable." + wait)]);
      }
      var data = answer.body;
      if (!data.found) return notListed();
      var row = null;
      var items = (answers[1] && answers[1].status === 200 && answers[1].body && answers[1].body.items) || [];
      for (var i = 0; i < items.length; i++) if (items[i].handle === data.handle) row = items[i];

      var parts = [];
      if (row && row.display_name) parts.push(el("span", "name", row.display_name));
      parts.push(el("span", row && row.display_name ? "handle muted" : "name", "@" + data.handle));
      var facts = el("ul", "facts");
      var tier = el("li");
      var dot = el("span", "dot");
      dot.setAttribute("aria-hidden", "true");
      tier.appendChild(dot);
      tier.appendChild(el("span", "sr", "Trust tier: "));
      tier.appendChild(el("span", "tier", data.tier));
      facts.appendChild(tier);
      if (row) facts.appendChild(el("li", null, "Verification: " + VERIFICATION[Math.max(0, Math.min(4, row.verification_level | 0))]));
      parts.push(facts);
      parts.push(
        data.blacklisted
          ? el("span", "state bad", "Blacklisted: banned on trustlist")
          : el("span", "state ok", "Not blacklisted"),
      );
      var link = el("a", null, "View profile");
      link.href = base + "/u/" + encodeURIComponent(data.handle);
      link.target = "_blank";
      link.rel = "noopener";
      link.appendChild(el("span", "sr", " of @" + data.handle + " on trustlist (opens in a new tab)"));
      parts.push(link);
      show(parts, /^#[0-9a-f]{3,6}$/i.test(data.tier_color) ? data.tier_color : null);
    },
    function () {
      show([el("span", "name", "@" + requested), el("span", "state unknown", "Could not reach trustlist.")]);
    },
  );
}

var trustTags = pendingScripts(TRUST_PATH);
for (var t = 0; t < trustTags.length; t++) renderTrustCard(trustTags[t]);
