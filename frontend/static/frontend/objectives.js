// The playground's picture of Pareto selection: every candidate recall sorted into fronts, on
// relevance (x) and coherence (y), its size its salience; the chosen ones filled, front 0
// outlined dark, the rest hollow. Redrawn when a new Mind arrives.
(function () {
  "use strict";
  var chart = null;
  function draw() {
    var canvas = document.querySelector("[data-objectives]");
    var script = document.getElementById("mind-data");
    if (!canvas || !script || !window.Chart) return;
    var mind = JSON.parse(script.textContent);
    var points = mind.objectives || [];
    var group = function (chosen) {
      return points.filter(function (o) { return o.chosen === chosen; }).map(function (o) {
        return { x: o.relevance, y: o.coherence, r: 3 + 9 * o.salience, id: o.id, front: o.front,
          salience: o.salience };
      });
    };
    if (chart) chart.destroy();
    chart = new window.Chart(canvas, {
      type: "bubble",
      data: { datasets: [
        { label: "chosen", data: group(true), backgroundColor: "rgba(90, 70, 200, 0.75)",
          borderColor: "#2d2a6e" },
        { label: "left out", data: group(false), backgroundColor: "rgba(160, 160, 170, 0.15)",
          borderColor: "rgba(110, 110, 120, 0.7)" }
      ] },
      options: {
        animation: false,
        scales: { x: { min: 0, max: 1, title: { display: true, text: "relevance" } },
                  y: { min: 0, max: 1.05, title: { display: true, text: "coherence" } } },
        plugins: { tooltip: { callbacks: { label: function (item) {
          var p = item.raw;
          return "#" + p.id + " front " + p.front + " · relevance " + p.x.toFixed(2) +
            " · coherence " + p.y.toFixed(2) + " · salience " + p.salience.toFixed(2);
        } } } }
      }
    });
    canvas.setAttribute("data-points", String(points.length));
    canvas.setAttribute("data-chosen", String(group(true).length));
  }
  draw();
  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "mind") draw();
  });
})();
