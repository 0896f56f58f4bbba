// The public pages' only script, and an optional one: every page works without it. It adds copy
// buttons to the embed snippets, and answers the search form on / in place (the same server-rendered
// results, fetched and swapped in) instead of reloading the page.
(function () {
  "use strict";
  var status = document.getElementById("live-status");
  var say = function (text) {
    if (status) status.textContent = text;
  };

  // Copy buttons: rendered hidden, shown only where the clipboard can be written.
  if (navigator.clipboard && window.isSecureContext) {
    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(source.value).then(
          function () {
            button.textContent = "Copied";
            say("Copied to the clipboard.");
            setTimeout(function () {
              button.textContent = "Copy";
            }, 2000);
          },
          function () {
            source.focus();
            source.select();
            say("Copy failed: the snippet is selected, copy it with your keyboard.");
          },
        );
      });
    });
  }

  // In-place search: the results section of the page the form would have loaded.
  var form = document.getElementById("check-form");
  var results = document.getElementById("results");
  if (!form || !results || !window.fetch || !window.DOMParser) return;
  var button = form.querySelector("button");
  form.addEventListener("submit", function (event) {
    var q = form.elements.q.value.trim();
    if (!q) return;
    event.preventDefault();
    var url = "/?q=" + encodeURIComponent(q);
    results.setAttribute("aria-busy", "true");
    button.disabled = true;
    say("Searching…");
    fetch(url, { headers: { accept: "text/html" } })
      .then(function (response) {
        return response.text().then(function (text) {
          var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("results");
          if (!fresh) throw new Error("status " + response.status);
          results.replaceChildren.apply(results, Array.prototype.slice.call(fresh.childNodes));
          history.pushState(null, "", url);
          var heading = results.querySelector("h2");
          if (heading) heading.focus();
          say("");
        });
      })
      .catch(function () {
        form.submit();
      })
      .finally(function () {
        results.removeAttribute("aria-busy");
        button.disabled = false;
      });
  });
  window.addEventListener("popstate", function () {
    location.reload();
  });
})();
