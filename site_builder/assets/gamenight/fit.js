/* Tables that fit their box: shared by the site's pages (site.js) and the play page (play.js).
 *
 * A table wider than its box is first made tighter (intervals under their values, less padding).
 * If it still does not fit: on a desktop screen it scrolls sideways inside its box (a keyboard
 * can focus the box and scroll it), so a row still reads across and columns line up; on a phone
 * (Material's breakpoint) it is stacked, one block per row, each cell on its own line after its
 * column's name, because a phone would show two or three columns of it at a time; a table marked
 * data-gn-grid (a matrix) scrolls on a phone as well. Nothing is cut (fit.css).
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

  /** Below Material's tablet breakpoint a wide table is stacked rather than scrolled. */
  var PHONE = "(max-width: 44.9375em)";

  /** Fit one table to its box (a .gn-scroll around it, else its parent). */
  function fit(table) {
    var box = table.closest(".gn-scroll") || table.parentElement;
    if (!box || !box.clientWidth) return;  // in a closed section: fitted when it opens
    labelCells(table);
    table.classList.remove("gn-tight", "gn-scrolled", "gn-stacked");
    scrolling(box, table, false);
    if (table.scrollWidth <= box.clientWidth + 1) return;
    table.classList.add("gn-tight");
    if (table.scrollWidth <= box.clientWidth + 1) return;
    // data-gn-grid (a head-to-head matrix): its rows and columns are both agents, so it reads
    // only as a grid and scrolls on a phone too, its first column held in place (site.css).
    if ((table.hasAttribute("data-gn-grid") || !window.matchMedia(PHONE).matches) && scrolls(box)) {
      table.classList.add("gn-scrolled");  // it scrolls anyway: values need not wrap
      scrolling(box, table, true);
      return;
    }
    table.classList.add("gn-stacked");
  }

  function scrolls(box) {
    var overflow = window.getComputedStyle(box).overflowX;
    return overflow === "auto" || overflow === "scroll";
  }

  /** A box that scrolls sideways is a named region the keyboard can focus and scroll (axe:
   * scrollable-region-focusable), and it shows that it scrolls: a line above it says so, and the
   * side where columns are hidden fades out (fit.css), so a table cut at the screen's edge is never
   * taken for the whole table. The attributes it had of its own are left alone. */
  function scrolling(box, table, on) {
    if (!box.hasAttribute("data-gn-scrolls") && (box.hasAttribute("tabindex") || !on)) return;
    var hint = box.previousElementSibling && box.previousElementSibling.hasAttribute("data-gn-scroll-hint")
      ? box.previousElementSibling : null;
    if (!on) {
      ["data-gn-scrolls", "tabindex", "role", "aria-label", "data-gn-more"].forEach(function (a) { box.removeAttribute(a); });
      if (hint) hint.remove();
      return;
    }
    box.setAttribute("data-gn-scrolls", "");
    box.setAttribute("tabindex", "0");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", regionName(box, table) + " (scrolls sideways)");
    if (!hint) {
      // The region's name says it to a screen reader already: the line is for the eyes.
      hint = document.createElement("p");
      hint.className = "gn-scroll-hint";
      hint.setAttribute("data-gn-scroll-hint", "");
      hint.setAttribute("aria-hidden", "true");
      hint.textContent = "Wider than the screen: scroll the table sideways for more columns \u2192";
      box.parentNode.insertBefore(hint, box);
    }
    if (!box.hasAttribute("data-gn-scroll-watched")) {
      box.setAttribute("data-gn-scroll-watched", "");
      box.addEventListener("scroll", function () { hidden(box); }, { passive: true });
    }
    hidden(box);
  }

  /** Which sides of a scrolling box hide columns: data-gn-more="left", "right" or "both". */
  function hidden(box) {
    if (!box.hasAttribute("data-gn-scrolls")) return;
    var left = box.scrollLeft > 1, right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    var more = left && right ? "both" : left ? "left" : right ? "right" : null;
    if (more) box.setAttribute("data-gn-more", more);
    else box.removeAttribute("data-gn-more");
  }

  /** The table's caption, else the heading it sits under, else its first column's name. */
  function regionName(box, table) {
    if (table.caption && table.caption.textContent.trim()) return table.caption.textContent.trim();
    var node = box;
    while (node && node !== document.body) {
      for (var before = node.previousElementSibling; before; before = before.previousElementSibling) {
        if (/^H[1-6]$/.test(before.tagName)) return before.textContent.replace(/[\s\u00b6]+/g, " ").trim();
      }
      node = node.parentElement;
    }
    return "Table";
  }

  window.gamenightFit = {
    fit: fit,
    fitAll: function (tables) { Array.prototype.forEach.call(tables, fit); },
  };
})();
