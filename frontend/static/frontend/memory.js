// Mnemo memory views: the graph around a cue, and the Mind of a recall drawn on a graph.
// Cytoscape.js is vendored (no CDN); data comes from the server, bounded there.
(function () {
  "use strict";
  if (!window.cytoscape) return;

  var DEPTH_COLOURS = ["#5b4bdb", "#2a6f97", "#7aa6c2", "#b8c7d6"];

  function style() {
    return [
      { selector: "node", style: {
        "label": "data(word)", "font-size": 11, "color": "#1f2330", "text-valign": "bottom",
        "text-margin-y": 3, "background-color": "data(colour)", "width": "data(size)",
        "height": "data(size)", "text-wrap": "ellipsis", "text-max-width": 110 } },
      { selector: "node.centre", style: { "border-width": 3, "border-color": "#f4a100" } },
      { selector: "node.hit", style: { "border-width": 3, "border-color": "#1f8a4c" } },
      { selector: "edge", style: {
        "width": "mapData(weight, 0, 1, 0.6, 7)", "line-color": "#9aa5b8", "opacity": 0.75,
        "curve-style": "haystack" } },
      { selector: "edge.sequence", style: { "line-color": "#6c7a93" } },
      { selector: ":selected", style: { "border-width": 3, "border-color": "#b3261e" } }
    ];
  }

  // Fit the drawing, but never blow a small graph up past readable size.
  function settle(cy) {
    cy.fit(undefined, 30);
    if (cy.zoom() > 2) { cy.zoom(2); cy.center(); }
  }

  function nodeSize(count) { return 14 + Math.min(34, 6 * Math.log(1 + (count || 0))); }

  // --- the graph page ---------------------------------------------------------------------
  var box = document.querySelector("[data-graph]");
  if (box) {
    var centre = box.getAttribute("data-center");
    var depth = Number(box.getAttribute("data-depth") || 2);
    var cy = window.cytoscape({ container: box, style: style() });
    window.mnemoGraph = cy;

    var load = function () {
      box.setAttribute("data-loading", "1");
      fetch(box.getAttribute("data-url") + "?cue=" + centre + "&depth=" + depth, {
        credentials: "same-origin", headers: { "Accept": "application/json" }
      }).then(function (r) { return r.json(); }).then(function (data) {
        cy.elements().remove();
        var ids = {};
        (data.nodes || []).forEach(function (n) {
          ids[n.id] = true;
          cy.add({ group: "nodes", data: { id: String(n.id), word: n.word, depth: n.depth,
            colour: DEPTH_COLOURS[Math.min(n.depth, 3)], size: nodeSize(n.engrams) },
            classes: n.id === data.center ? "centre" : "" });
        });
        (data.edges || []).forEach(function (e, i) {
          if (!ids[e.source] || !ids[e.target] || e.source === e.target) return;
          cy.add({ group: "edges", data: { id: "e" + i, source: String(e.source),
            target: String(e.target), weight: e.weight }, classes: e.kind });
        });
        cy.layout({ name: "concentric", concentric: function (node) { return 10 - node.data("depth"); },
          levelWidth: function () { return 1; }, minNodeSpacing: 18, animate: false }).run();
        settle(cy);
        box.setAttribute("data-nodes", String(cy.nodes().length));
        box.setAttribute("data-edges", String(cy.edges().length));
        box.removeAttribute("data-loading");
      });
    };

    var showMemories = function (id) {
      var url = box.getAttribute("data-memories-url").replace(/\/0\/$/, "/" + id + "/");
      if (window.htmx) window.htmx.ajax("GET", url, { target: "#cue-panel", swap: "innerHTML" });
    };

    cy.on("tap", "node", function (event) { showMemories(event.target.id()); });
    cy.on("dbltap", "node", function (event) {
      centre = event.target.id();
      load();
      showMemories(centre);
    });
    var slider = document.querySelector("[data-graph-depth]");
    if (slider) {
      slider.addEventListener("input", function () {
        depth = Number(slider.value);
        var out = document.querySelector("[data-depth-value]");
        if (out) out.textContent = String(depth);
        load();
      });
    }
    document.addEventListener("click", function (event) {
      var link = event.target.closest("[data-center-cue]");
      if (!link) return;
      event.preventDefault();
      centre = link.getAttribute("data-center-cue");
      load();
      showMemories(centre);
      var results = document.getElementById("cue-results");
      if (results) results.innerHTML = "";
    });
    load();
  }

  // --- the playground: the Mind's activated cues and the connections used -------------------
  function drawMind() {
    var holder = document.querySelector("[data-mind-graph]");
    var script = document.getElementById("mind-data");
    if (!holder || !script) return;
    var mind = JSON.parse(script.textContent);
    var cy = window.cytoscape({ container: holder, style: style() });
    var ids = {};
    var top = Math.max.apply(null, (mind.cues || []).map(function (c) { return c.energy; }).concat([0.01]));
    (mind.cues || []).forEach(function (c) {
      ids[c.id] = true;
      cy.add({ group: "nodes", data: { id: String(c.id), word: c.word || ("#" + c.id), depth: c.depth,
        colour: DEPTH_COLOURS[Math.min(c.depth, 3)], size: 14 + 30 * (c.energy / top) },
        classes: c.depth === 0 ? "hit" : "" });
    });
    (mind.connections || []).forEach(function (e, i) {
      if (!ids[e.source] || !ids[e.target] || e.source === e.target) return;
      cy.add({ group: "edges", data: { id: "m" + i, source: String(e.source), target: String(e.target),
        weight: e.weight } });
    });
    cy.layout({ name: "concentric", concentric: function (node) { return 10 - node.data("depth"); },
      levelWidth: function () { return 1; }, minNodeSpacing: 16, animate: false }).run();
    settle(cy);
    holder.setAttribute("data-nodes", String(cy.nodes().length));
    holder.setAttribute("data-highlighted", String(cy.nodes(".hit").length));
    window.mnemoMind = cy;
  }
  drawMind();
  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "mind") drawMind();
  });
})();
