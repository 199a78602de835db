/* Restores the reader's light/dark choice before the page paints (Material's inline version is
   blocked by the Content-Security-Policy). */
(function () {
  "use strict";
  var saved = window.__md_get && window.__md_get("__palette");
  if (!saved || !saved.color) return;
  if (saved.color.media === "(prefers-color-scheme)") {
    var prefersLight = window.matchMedia("(prefers-color-scheme: light)").matches;
    var input = document.querySelector(prefersLight
      ? "[data-md-color-media='(prefers-color-scheme: light)']"
      : "[data-md-color-media='(prefers-color-scheme: dark)']");
    if (input) {
      ["media", "scheme", "primary", "accent"].forEach(function (part) {
        saved.color[part] = input.getAttribute("data-md-color-" + part);
      });
    }
  }
  Object.keys(saved.color).forEach(function (part) {
    document.body.setAttribute("data-md-color-" + part, saved.color[part]);
  });
})();
