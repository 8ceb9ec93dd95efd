// A task's DAG on its page: steps as nodes (coloured by outcome), causes as arrows (dashed when
// inferred), parents dotted; steps laid out left to right in recording order. A click opens
// the step's page.
(function () {
  "use strict";
  var box = document.querySelector("[data-dag]");
  var source = document.getElementById("dag-data");
  if (!box || !source || !window.cytoscape) return;
  var data = JSON.parse(source.textContent);
  var colours = { success: "#2f855a", failure: "#c53030", none: "#4a5568" };
  var elements = [];
  data.nodes.forEach(function (n) {
    elements.push({ group: "nodes", data: { id: String(n.id), label: n.label,
      colour: colours[n.outcome] || colours.none, index: n.index } });
  });
  data.edges.forEach(function (e, i) {
    elements.push({ group: "edges", data: { id: "e" + i, source: String(e.source),
      target: String(e.target) }, classes: e.kind });
  });
  var cy = window.cytoscape({
    container: box,
    elements: elements,
    style: [
      { selector: "node", style: { "background-color": "data(colour)", label: "data(label)",
        "font-size": 10, "text-wrap": "wrap", "text-max-width": 140, "text-valign": "bottom",
        "text-margin-y": 4, width: 18, height: 18, color: "#1a202c" } },
      { selector: "edge", style: { width: 2, "curve-style": "bezier", "target-arrow-shape":
        "triangle", "line-color": "#718096", "target-arrow-color": "#718096" } },
      { selector: "edge.inferred", style: { "line-style": "dashed" } },
      { selector: "edge.parent", style: { "line-style": "dotted", "target-arrow-shape": "none" } }
    ],
    layout: { name: "breadthfirst", directed: true, spacingFactor: 1.1, animate: false,
      roots: data.nodes.filter(function (n) {
        return !data.edges.some(function (e) { return String(e.target) === String(n.id); });
      }).map(function (n) { return "#" + n.id; }) }
  });
  window.mnemoDag = cy;
  var url = box.getAttribute("data-step-url");
  cy.on("tap", "node", function (event) {
    window.location.href = url.replace(/0\/$/, event.target.id() + "/");
  });
  box.setAttribute("data-ready", "1");
})();
