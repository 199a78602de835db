// The gamenight site's Plotly: the core (scatter traces) and the trace types its charts draw.
// tests/site/test_plotly_bundle.py checks every trace type site.js asks for is registered here.
var Plotly = require("plotly.js/lib/core");

Plotly.register([
  require("plotly.js/lib/bar"),
  require("plotly.js/lib/heatmap"),
  require("plotly.js/lib/scatterpolar"),
]);

module.exports = Plotly;
