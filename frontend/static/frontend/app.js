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

  // Forms that ask before they act (archive, restore, delete).
  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
  });

  // The DPML editor: line numbers, the lines with errors marked (from the live check's
  // data-error-lines), and a click on a problem puts the cursor at its line and column.
  function errorLines() {
    var result = document.getElementById("check-result");
    var raw = result ? result.getAttribute("data-error-lines") : "";
    return raw ? raw.split(",").map(Number) : [];
  }

  function paint(box) {
    var area = box.querySelector("textarea");
    var gutter = box.querySelector(".gutter");
    var bad = {};
    errorLines().forEach(function (n) { bad[n] = true; });
    var count = area.value.split("\n").length;
    var out = [];
    for (var i = 1; i <= count; i++) {
      out.push(bad[i] ? '<span class="bad" data-bad-line="' + i + '">' + i + "</span>" : String(i));
    }
    gutter.innerHTML = out.join("\n") + "\n";
    gutter.scrollTop = area.scrollTop;
  }

  function paintAll() {
    document.querySelectorAll("[data-code-editor]").forEach(paint);
  }

  document.querySelectorAll("[data-code-editor]").forEach(function (box) {
    var area = box.querySelector("textarea");
    area.addEventListener("input", function () { paint(box); });
    area.addEventListener("scroll", function () {
      box.querySelector(".gutter").scrollTop = area.scrollTop;
    });
    paint(box);
  });
  document.body.addEventListener("htmx:afterSwap", paintAll);

  document.addEventListener("click", function (event) {
    var target = event.target.closest("[data-goto-line]");
    var area = document.getElementById("source");
    if (!target || !area) return;
    var line = Number(target.getAttribute("data-goto-line"));
    var column = Number(target.getAttribute("data-goto-column") || 1);
    var lines = area.value.split("\n");
    var offset = 0;
    for (var i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    offset += Math.max(0, column - 1);
    area.focus();
    area.setSelectionRange(offset, offset);
    var height = parseFloat(getComputedStyle(area).lineHeight) || 20;
    area.scrollTop = Math.max(0, (line - 4) * height);
  });
})();
