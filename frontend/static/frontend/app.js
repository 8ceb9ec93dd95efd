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

  // Memory pages ------------------------------------------------------------------------------
  document.addEventListener("submit", function (event) {
    if (event.target.closest("[data-no-submit]")) event.preventDefault();  // the select navigates
  });
  document.addEventListener("change", function (event) {
    var select = event.target.closest("[data-network-switch]");
    if (select) window.location.href = select.value;
    var all = event.target.closest("[data-select-all]");
    if (all) {
      document.querySelectorAll("input[name=ids]").forEach(function (box) { box.checked = all.checked; });
    }
    if (event.target.closest("input[name=ids], [data-select-all]")) {
      var count = document.querySelectorAll("input[name=ids]:checked").length;
      var label = document.querySelector("[data-selected-count]");
      if (label) label.textContent = count + " selected";
    }
  });

  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    if (button && button.hasAttribute("data-confirm-bulk") &&
        !window.confirm(button.getAttribute("data-confirm-bulk"))) event.preventDefault();
  });

  // Charts on the overview (Chart.js, vendored).
  function drawCharts() {
    var script = document.getElementById("chart-data");
    if (!script || !window.Chart) return;
    var data = JSON.parse(script.textContent);
    var growth = document.querySelector("[data-chart=growth]");
    if (growth) {
      new window.Chart(growth, { type: "bar", data: { labels: data.growth.labels, datasets: [
        { type: "line", label: "in total", data: data.growth.total, yAxisID: "total",
          borderColor: "#5b4bdb", backgroundColor: "#5b4bdb", pointRadius: 0, tension: 0.2 },
        { label: "added", data: data.growth.added, backgroundColor: "#b8c7d6" }
      ] }, options: { animation: false, maintainAspectRatio: false, scales: {
        x: { ticks: { maxTicksLimit: 8 } }, y: { beginAtZero: true, position: "left" },
        total: { beginAtZero: true, position: "right", grid: { drawOnChartArea: false } } } } });
      growth.setAttribute("data-drawn", "1");
    }
    var activity = document.querySelector("[data-chart=activity]");
    if (activity) {
      new window.Chart(activity, { type: "bar", data: { labels: data.activity.labels, datasets: [
        { label: "recalls", data: data.activity.recall, backgroundColor: "#2a6f97", stack: "n" },
        { label: "primes", data: data.activity.prime, backgroundColor: "#7aa6c2", stack: "n" },
        { type: "line", label: "p95 ms", data: data.activity.p95, yAxisID: "ms",
          borderColor: "#f4a100", backgroundColor: "#f4a100", pointRadius: 2 }
      ] }, options: { animation: false, maintainAspectRatio: false, scales: {
        x: { stacked: true, ticks: { maxTicksLimit: 8 } }, y: { stacked: true, beginAtZero: true },
        ms: { beginAtZero: true, position: "right", grid: { drawOnChartArea: false } } } } });
      activity.setAttribute("data-drawn", "1");
    }
  }
  // Chart.js is a deferred script after this one: draw once every deferred script has run.
  document.addEventListener("DOMContentLoaded", drawCharts);

  // Editing a memory: a changed content is filed under its own words unless told otherwise.
  document.addEventListener("input", function (event) {
    var area = event.target;
    if (!area.matches || !area.matches("[data-testid=engram-form] textarea[name=content]")) return;
    var derive = area.form && area.form.querySelector("[data-derive]");
    if (derive && !derive.dataset.touched) derive.checked = true;
  });
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("[data-derive]")) {
      event.target.dataset.touched = "1";
    }
  });
  // a schema typed by hand is kept: typing one unticks "derive again"
  document.addEventListener("input", function (event) {
    var field = event.target;
    if (!field.matches || !field.matches("[data-testid=engram-form] input[name=schema]")) return;
    var derive = field.form && field.form.querySelector("[data-derive]");
    if (derive) { derive.checked = false; derive.dataset.touched = "1"; }
  });

  // Live updates: the tenant's memory events over a websocket.
  function liveItem(engram, network, slug) {
    var li = document.createElement("li");
    var link = document.createElement("a");
    link.href = "/t/" + slug + "/memory/" + encodeURIComponent(network) + "/engrams/" + engram.id + "/";
    link.textContent = engram.content;
    li.appendChild(link);
    var tag = document.createElement("small");
    tag.className = "muted";
    tag.textContent = " " + engram.type + " · " + network + " · just now";
    li.appendChild(tag);
    li.setAttribute("data-engram", String(engram.id));
    return li;
  }

  function onEvent(event, slug) {
    document.body.dispatchEvent(new CustomEvent("memory-changed", { detail: event }));
    if (event.type === "moderation") {
      document.querySelectorAll("[data-moderation-badge]").forEach(function (badge) {
        badge.textContent = String(event.pending);
        badge.classList.toggle("quiet", !event.pending);
      });
      var queue = document.querySelector("[data-moderation-queue]");
      var notice = document.querySelector("[data-testid=queue-changed]");
      if (queue && notice && queue.getAttribute("data-pending") !== String(event.pending)) {
        notice.hidden = false;
      }
      return;
    }
    if (document.querySelector("[data-live-reload]") && event.type === "remembered") {
      window.location.reload();
      return;
    }
    if (event.type !== "remembered") return;
    document.querySelectorAll("[data-live-network]").forEach(function (holder) {
      var wanted = holder.getAttribute("data-live-network");
      if (wanted !== "*" && wanted !== event.network) return;
      // the newest on top: a page's own live feed, or the list of recent memories itself
      var list = holder.querySelector("[data-testid=live-feed], [data-live-list]");
      if (!list) return;
      var empty = list.querySelector("[data-empty]");
      if (empty) empty.remove();
      (event.engrams || []).forEach(function (engram) {
        if (engram.status && engram.status !== "active") return;  // held: not shown to readers
        if (list.querySelector('[data-engram="' + engram.id + '"]')) return;
        list.insertBefore(liveItem(engram, event.network, slug), list.firstChild);
      });
      holder.hidden = false;
    });
    // the network picker's counts follow what is written while the page is open
    document.querySelectorAll("option[data-network-option]").forEach(function (option) {
      if (option.getAttribute("data-network-option") !== event.network) return;
      var count = Number(option.getAttribute("data-count")) + (event.created || 0);
      option.setAttribute("data-count", String(count));
      option.textContent = event.network + " (" + count + ")";
    });
    document.querySelectorAll("tr[data-network]").forEach(function (row) {
      if (row.getAttribute("data-network") !== event.network) return;
      var cell = row.querySelector("[data-count=engrams]");
      if (cell) cell.textContent = String(Number(cell.textContent) + (event.created || 0));
    });
  }

  var main = document.querySelector("[data-tenant]");
  var listening = document.querySelector(
    "[data-live-network], #network-counts, tr[data-network], [data-live-reload], " +
    "[data-moderation-badge], option[data-network-option]");
  if (main && listening && "WebSocket" in window) {
    var slug = main.getAttribute("data-tenant");
    var delay = 1000;
    var connect = function () {
      var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
      var socket = new WebSocket(scheme + window.location.host + "/ws/t/" + slug + "/memory/");
      socket.onopen = function () { delay = 1000; document.body.setAttribute("data-live", "on"); };
      socket.onmessage = function (message) { onEvent(JSON.parse(message.data), slug); };
      socket.onclose = function (closing) {
        document.body.setAttribute("data-live", "off");
        if (closing.code === 4403) return;  // not a member: do not knock again
        if (closing.code === 4503) delay = Math.max(delay, 15000);  // live updates are down
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    };
    connect();
  }
})();
