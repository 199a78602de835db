/* The light/dark toggle of the pages that do without Material's bundle (the replay viewer).
 *
 * It reads and writes the choice where Material keeps it (material-boot.js's __md_get/__md_set,
 * key "__palette": {index, color}), so the choice carries over to and from every other page.
 * On a page where Material's bundle runs (it defines document$), the bundle does this itself.
 */
(function () {
  "use strict";
  var form = document.querySelector("[data-md-component=palette]");
  if (!form || window.document$) return;
  var inputs = Array.prototype.slice.call(form.querySelectorAll("input[name=__palette]"));
  var labels = Array.prototype.slice.call(form.querySelectorAll("label"));
  if (!inputs.length) return;

  function colorOf(input) {
    var color = {};
    ["media", "scheme", "primary", "accent"].forEach(function (part) {
      color[part] = input.getAttribute("data-md-color-" + part);
    });
    return color;
  }

  /** Show palette `index`: the body's colours, and the button that switches to the next one. */
  function apply(index, save) {
    var input = inputs[index];
    var color = colorOf(input);
    ["scheme", "primary", "accent"].forEach(function (part) {
      document.body.setAttribute("data-md-color-" + part, color[part]);
    });
    var next = inputs[(index + 1) % inputs.length].id;
    labels.forEach(function (label) { label.hidden = label.htmlFor !== next; });
    if (save && window.__md_set) window.__md_set("__palette", { index: index, color: color });
  }

  function startIndex() {
    var saved = window.__md_get ? window.__md_get("__palette") : null;
    if (saved && typeof saved.index === "number" && inputs[saved.index]) return saved.index;
    var matching = inputs.findIndex(function (input) {
      var media = input.getAttribute("data-md-color-media");
      return media && window.matchMedia(media).matches;
    });
    return matching < 0 ? 0 : matching;
  }

  form.addEventListener("change", function (event) {
    var index = inputs.indexOf(event.target);
    if (index >= 0) apply(index, true);
  });
  apply(startIndex(), false);
})();
