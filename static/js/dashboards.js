// Draws every <canvas data-chart="bar|line" data-source="id"> from the JSON in the
// element with that id: {labels, values} for one series, or {labels, datasets}.
(function () {
  "use strict";
  if (typeof Chart === "undefined") return;
  document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
    var data = JSON.parse(document.getElementById(canvas.dataset.source).textContent);
    var datasets = data.datasets || [{ label: "count", data: data.values }];
    new Chart(canvas, {
      type: canvas.dataset.chart,
      data: { labels: data.labels, datasets: datasets },
      options: { animation: false, responsive: true, plugins: { legend: { display: datasets.length > 1 } } },
    });
  });
})();
