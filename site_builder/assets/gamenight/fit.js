/* Tables that fit their box: shared by the site's pages (site.js) and the play page (play.js).
 *
 * A table wider than its box is first made tighter (intervals under their values, less padding),
 * then, if it still does not fit, stacked: one block per row, each cell on its own line after its
 * column's name. Nothing is cut and nothing scrolls sideways, at any width (fit.css).
 */
(function () {
  "use strict";

  /** Each cell learns its column's name (shown beside it when the table is stacked). */
  function labelCells(table) {
    if (!table.tHead || !table.tHead.rows.length) return;
    table.setAttribute("data-gn-labelled", "");
    var names = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
      var copy = th.cloneNode(true);
      Array.prototype.forEach.call(copy.querySelectorAll(".gn-help"), function (b) { b.remove(); });
      return copy.textContent.replace(/\s+/g, " ").trim();
    });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        var column = 0;
        Array.prototype.forEach.call(row.cells, function (cell) {
          if (names[column] && cell.colSpan === 1 && !cell.hasAttribute("data-label")) {
            cell.setAttribute("data-label", names[column]);
          }
          column += cell.colSpan;
        });
      });
    });
  }

  /** Fit one table to its box (a .gn-scroll around it, else its parent). */
  function fit(table) {
    var box = table.closest(".gn-scroll") || table.parentElement;
    if (!box || !box.clientWidth) return;  // in a closed section: fitted when it opens
    labelCells(table);
    table.classList.remove("gn-tight", "gn-stacked");
    if (table.scrollWidth <= box.clientWidth + 1) return;
    table.classList.add("gn-tight");
    if (table.scrollWidth <= box.clientWidth + 1) return;
    table.classList.add("gn-stacked");
  }

  window.gamenightFit = {
    fit: fit,
    fitAll: function (tables) { Array.prototype.forEach.call(tables, fit); },
  };
})();
