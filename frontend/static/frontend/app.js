// Mnemo dashboard behaviour: copy buttons and filling snippets with a pasted key (never sent).
(function () {
  "use strict";

  function copyFrom(selector, button) {
    var el = document.querySelector(selector);
    if (!el) return;
    var text = "value" in el && el.tagName !== "CODE" ? el.value : el.textContent;
    if (!button.dataset.label) button.dataset.label = button.textContent;
    var done = function (ok) {
      button.textContent = ok === false ? "Press Ctrl+C" : "Copied";
      clearTimeout(button._reset);
      button._reset = setTimeout(function () { button.textContent = button.dataset.label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(el, done); });
    } else {
      fallback(el, done);
    }
  }

  function fallback(el, done) {
    var area = document.createElement("textarea");
    area.value = "value" in el && el.tagName !== "CODE" ? el.value : el.textContent;
    document.body.appendChild(area);
    area.select();
    try { done(document.execCommand("copy")); } finally { area.remove(); }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (button) copyFrom(button.getAttribute("data-copy"), button);
  });

  document.addEventListener("input", function (event) {
    var input = event.target.closest("[data-key-fill]");
    if (!input) return;
    var placeholder = input.getAttribute("data-key-fill");
    var key = input.value.trim() || placeholder;
    document.querySelectorAll("[data-template]").forEach(function (code) {
      code.textContent = code.getAttribute("data-template").split(placeholder).join(key);
    });
  });
})();
