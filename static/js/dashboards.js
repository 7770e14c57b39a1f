// Draws every <canvas data-chart="bar|line" data-source="id"> from the JSON in the
// element with that id: {labels, values} for one series, or {labels, datasets}, with
// optional x_title, y_title and stacked. Bars and points stay visible however sparse the
// data; colours keep at least 4.5:1 contrast against the white card.
(function () {
  "use strict";
  if (typeof Chart === "undefined") return;
  // Each at least 4.5:1 on white (WCAG AA for text, and so for marks and their legend).
  var COLOURS = ["#1a5fd0", "#b42318", "#067647", "#7a2e98", "#8a5a00", "#0e6e7e", "#5b6475"];
  var TEXT = "#1d2330", MUTED = "#5b6475", GRID = "#dde1e8";
  Chart.defaults.color = MUTED;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", sans-serif';

  function axis(title, extra) {
    var options = { grid: { color: GRID }, ticks: { color: MUTED }, title: { display: !!title, text: title || "", color: TEXT } };
    return Object.assign(options, extra || {});
  }

  document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
    var data = JSON.parse(document.getElementById(canvas.dataset.source).textContent);
    var datasets = data.datasets || [{ label: "Count", data: data.values }];
    var type = canvas.dataset.chart;
    datasets.forEach(function (dataset, index) {
      var colour = COLOURS[index % COLOURS.length];
      dataset.backgroundColor = colour;
      dataset.borderColor = colour;
      dataset.pointRadius = 4; // a lone value is a dot, not nothing
      dataset.pointHoverRadius = 6;
      dataset.maxBarThickness = 48;
    });
    if (!data.labels || !data.labels.length) {
      var note = document.createElement("p");
      note.className = "help";
      note.textContent = "Nothing to show yet.";
      canvas.replaceWith(note);
      return;
    }
    new Chart(canvas, {
      type: type,
      data: { labels: data.labels, datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        plugins: { legend: { display: datasets.length > 1, labels: { color: TEXT } } },
        scales: {
          x: axis(data.x_title, { stacked: !!data.stacked }),
          y: axis(data.y_title, { stacked: !!data.stacked, beginAtZero: true, ticks: { color: MUTED, precision: 0 } }),
        },
      },
    });
  });
})();
