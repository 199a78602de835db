/* The agents' index: a search box that keeps the rows whose text holds every word typed.
   Without JavaScript the box stays hidden and the page is the plain list of every agent. Reads
   text with textContent only; writes only the count (textContent) and rows' `hidden`. */
(function () {
  "use strict";

  function words(text) {
    return text.toLowerCase().split(/\s+/).filter(Boolean);
  }

  function init() {
    var box = document.querySelector("[data-gn-agent-search]");
    if (!box || box.hasAttribute("data-gn-ready")) return;
    var table = document.getElementById(box.getAttribute("data-gn-agent-search"));
    var input = box.querySelector("input[type=search]");
    var counter = box.querySelector("[data-gn-count]");
    if (!table || !table.tBodies.length || !input) return;
    box.setAttribute("data-gn-ready", "");
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    var apply = function () {
      var wanted = words(input.value);
      var shown = 0;
      rows.forEach(function (row, i) {
        var keep = wanted.every(function (word) { return texts[i].indexOf(word) !== -1; });
        row.hidden = !keep;
        if (keep) shown += 1;
      });
      if (counter) counter.textContent = shown + " of " + rows.length + " agents";
    };
    var query = new URLSearchParams(location.search).get("find");
    if (query) input.value = query;
    input.addEventListener("input", function () {
      apply();
      var params = new URLSearchParams(location.search);
      if (input.value.trim()) params.set("find", input.value.trim()); else params.delete("find");
      var search = params.toString();
      history.replaceState(history.state, "", location.pathname + (search ? "?" + search : "") + location.hash);
    });
    box.hidden = false;
    apply();
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
