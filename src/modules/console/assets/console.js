// The console's only script, and an optional one: every form works without it (a POST answered
// with a redirect). It asks before an action that cannot be undone (buttons marked data-confirm),
// selects a secret shown once when it is focused, and moves focus to the notice of what just happened.
(function () {
  "use strict";
  document.querySelectorAll("form").forEach(function (form) {
    var button = form.querySelector("button[data-confirm]");
    if (!button) return;
    form.addEventListener("submit", function (event) {
      if (!window.confirm(button.getAttribute("data-confirm"))) event.preventDefault();
    });
  });
  var secret = document.querySelector(".secret-value");
  if (secret) {
    secret.addEventListener("focus", function () {
      secret.select();
    });
  }
  var banner = document.querySelector("main .banner");
  if (banner) {
    banner.setAttribute("tabindex", "-1");
    banner.focus();
  }
})();
