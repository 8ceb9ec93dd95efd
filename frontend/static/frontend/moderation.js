// The moderation queue from the keyboard: j/k move between items, a/r/d/h decide the focused
// one (its form's button), x selects it for a bulk decision. Typing in a field is left alone.
(function () {
  "use strict";
  var panel = document.querySelector("[data-moderation-queue]");
  if (!panel || panel.getAttribute("data-keys") === "on") return;
  panel.setAttribute("data-keys", "on");
  var items = function () { return Array.prototype.slice.call(panel.querySelectorAll("[data-item]")); };
  var current = 0;
  var focus = function (index) {
    var list = items();
    if (!list.length) return;
    current = Math.max(0, Math.min(index, list.length - 1));
    list.forEach(function (li, i) { li.classList.toggle("focused", i === current); });
    list[current].focus();
    list[current].scrollIntoView({ block: "nearest" });
  };
  var counter = panel.querySelector("[data-testid=selected-count]");
  var recount = function () {
    var n = panel.querySelectorAll("input[name=ids]:checked").length;
    if (counter) counter.textContent = n + " selected";
  };
  panel.addEventListener("change", recount);
  items().forEach(function (li, i) {
    li.addEventListener("click", function () { current = i; focus(i); });
  });
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && (target.tagName === "INPUT" && target.type === "text" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    var list = items();
    if (!list.length) return;
    var key = event.key;
    if (key === "j") { focus(current + 1); event.preventDefault(); return; }
    if (key === "k") { focus(current - 1); event.preventDefault(); return; }
    var li = list[current];
    if (key === "x") {
      var box = li.querySelector("input[name=ids]");
      if (box) { box.checked = !box.checked; recount(); }
      event.preventDefault();
      return;
    }
    var button = li.querySelector("button[data-key='" + key + "']");
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });
  document.querySelectorAll("[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
  focus(0);
})();
