/* gamenight replay list: every replay, filtered by game, agent and outcome, a page at a time.
 *
 * The filters live in the address (?game=chameleon&agent=<label>&outcome=<words>&page=2), so a
 * filtered list can be linked to. Data (site_builder/viewer/listing.py): list/index.json
 * (games, agents, labels, (game, outcome) keys), and per stream of rows ("all", "g-<game>",
 * "a<label>") a file of counts per shard and the gzip shards. A page fetches the one stream its
 * filters need, works out from the counts which shards hold the rows it shows, and fetches those.
 */
(function (install) {
  // Material inserts a page's scripts all at once on instant navigation, so this file may run
  // before common.js: it then waits in a queue that common.js empties.
  if (window.gamenightReplays) install(window.gamenightReplays);
  else (window.gamenightReplaysWaiting = window.gamenightReplaysWaiting || []).push(install);
})(function (R) {
  "use strict";
  if (R.indexLoaded) return;
  R.indexLoaded = true;
  var el = R.el, fill = R.fill;
  var PAGE_ROWS = 50;
  var LIST_VERSION = 3; // site_builder/viewer/listing.py LIST_VERSION
  var FILTERS = ["game", "agent", "outcome"];

  R.onEachPage("[data-gn-replays]", start);

  function start(root) {
    var abort = new AbortController();
    var form = root.querySelector(".gn-filters");
    var message = root.querySelector(".gn-message");
    var pager = root.querySelector(".gn-pager");
    var params = new URLSearchParams(window.location.search);
    var chosen = {};
    FILTERS.forEach(function (f) { chosen[f] = params.get(f) || ""; });
    var page = /^[0-9]{1,6}$/.test(params.get("page") || "") ? Math.max(1, Number(params.get("page"))) : 1;
    var manifest = null;
    var files = {}; // file -> promise of its content (stream counts and shards are kept once fetched)
    var keyOf = {}; // "<game index>/<outcome index>" -> key index
    var latest = 0; // only the newest update may draw

    R.fetchJSON(root.dataset.list + "index.json", abort.signal, LIST_VERSION).then(function (loaded) {
      manifest = loaded;
      manifest.keys.forEach(function (key, k) { keyOf[key[0] + "/" + key[1]] = k; });
      form.addEventListener("change", onChange);
      form.addEventListener("reset", onReset);
      root.querySelector(".gn-page-prev").addEventListener("click", function () { page -= 1; update(); });
      root.querySelector(".gn-page-next").addEventListener("click", function () { page += 1; update(); });
      update();
    }).catch(function (error) {
      if (!abort.signal.aborted) fill(message, "The list of replays could not be loaded (" + error.message + ").");
    });

    function games() {
      return manifest.games.filter(function (g) { return !chosen.game || g.game === chosen.game; });
    }

    function options(select, first, choices, current) { // choices: [{value, text}]
      var list = choices.slice();
      var known = list.some(function (c) { return c.value === current; });
      if (current && !known) list.push({ value: current, text: current }); // from the address; matches nothing
      fill(select, el("option", { value: "", text: first }), list.map(function (c) {
        return el("option", { value: c.value, text: c.text });
      }));
      select.value = current;
    }

    function plain(values) { return Array.from(values).sort().map(function (v) { return { value: v, text: v }; }); }

    function drawFilters() {
      options(form.elements.game, "All games", manifest.games.map(function (g) {
        return { value: g.game, text: g.title + " (" + g.count + ")" };
      }), chosen.game);
      var labels = new Set(), outcomes = new Set();
      games().forEach(function (g) {
        g.agents.forEach(function (a) { labels.add(manifest.agents[a]); });
        g.outcomes.forEach(function (o) { outcomes.add(o); });
      });
      options(form.elements.agent, "All agents", plain(labels), chosen.agent);
      options(form.elements.outcome, "Any outcome", plain(outcomes), chosen.outcome);
    }

    function load(file) {
      if (!files[file]) {
        files[file] = R.fetchJSON(root.dataset.list + file, abort.signal, LIST_VERSION);
        files[file].catch(function () { delete files[file]; }); // a failed fetch may be tried again
      }
      return files[file];
    }

    /** The stream holding every row of the chosen filters (null: no row can match). */
    function stream() {
      if (chosen.agent) {
        var label = manifest.labels.indexOf(chosen.agent);
        return label < 0 ? null : "a" + label;
      }
      if (chosen.game) return games().length ? "g-" + chosen.game : null;
      return "all";
    }

    /** Whether key k, a (game, outcome) pair, passes the game and outcome filters. */
    function keyMatches(k) {
      var key = manifest.keys[k], game = manifest.games[key[0]];
      return (!chosen.game || game.game === chosen.game) && (!chosen.outcome || game.outcomes[key[1]] === chosen.outcome);
    }

    function update() {
      var mine = ++latest;
      root.dataset.ready = "false"; // until this update's rows are drawn
      drawFilters();
      writeAddress();
      fill(message, "Loading the list of replays\u2026");
      var name = stream();
      var counted = name === null ? Promise.resolve({ keys: [], shards: [] }) : load(name + ".json");
      counted.then(function (counts) {
        // Rows of each shard that pass the filters, from its counts; then the shards of this page.
        var wantedKeys = (counts.keys || []).map(keyMatches);
        var sizes = counts.shards.map(function (tally) {
          return tally.reduce(function (sum, n, i) { return sum + (wantedKeys[i] ? n : 0); }, 0);
        });
        var total = sizes.reduce(function (a, b) { return a + b; }, 0);
        var pages = Math.max(1, Math.ceil(total / PAGE_ROWS));
        page = Math.min(Math.max(1, page), pages);
        var first = (page - 1) * PAGE_ROWS, end = Math.min(total, first + PAGE_ROWS);
        var wanted = [], before = 0, skip = 0;
        sizes.forEach(function (size, n) {
          if (size && before < end && before + size > first) {
            if (!wanted.length) skip = first - before;
            wanted.push(n);
          }
          before += size;
        });
        return Promise.all(wanted.map(function (n) { return load(name + "-" + n + ".json.gz"); })).then(function (shards) {
          if (mine !== latest || abort.signal.aborted) return;
          var rows = [];
          shards.forEach(function (shard) {
            shard.rows.forEach(function (row) {
              var item = { game: manifest.games[row[8]], row: row };
              if (matches(item)) rows.push(item);
            });
          });
          draw(rows.slice(skip, skip + (end - first)), total, first, pages);
        });
      }).catch(function (error) {
        if (mine !== latest || abort.signal.aborted) return;
        fill(message, "Some replays could not be loaded (" + error.message + ").");
      });
    }

    function matches(item) {
      var row = item.row;
      var key = keyOf[row[8] + "/" + row[4]];
      if (!item.game || key === undefined || !keyMatches(key)) return false;
      if (chosen.agent && !row[2].some(function (a) { return manifest.agents[a] === chosen.agent; })) return false;
      return true;
    }

    function draw(shown, total, first, pages) {
      var plural = total === 1 ? "" : "s";
      fill(message, total
        ? "Showing " + (first + 1) + "\u2013" + (first + shown.length) + " of " + total + " replay" + plural + "."
        : "No replay matches these filters.");
      fill(root.querySelector(".gn-rows"), shown.map(drawRow));
      R.fitTables();  // new rows: fit the table to its box again
      root.classList.toggle("gn-one-game", Boolean(chosen.game)); // the game column would repeat itself
      pager.hidden = pages === 1;
      fill(root.querySelector(".gn-page"), "Page " + page + " of " + pages);
      root.querySelector(".gn-page-prev").disabled = page === 1;
      root.querySelector(".gn-page-next").disabled = page === pages;
      writeAddress();
      root.dataset.ready = "true";
    }

    function drawRow(item) {
      var row = item.row;
      var id = row[0];
      var outcome = item.game.outcomes[row[4]] + (row[3].length ? " \u2014 won: " + seats(item, row[3]) : "");
      return el("tr", { class: row[5] ? "gn-invalid" : null },
        el("td", {}, R.SLUG.test(id) ? R.link(root.dataset.viewer, { id: id }, { title: id }, "View") : "\u2014"),
        el("td", { text: item.game.title }),
        el("td", { text: row[1] }),
        el("td", { text: seats(item, row[2].map(function (a, seat) { return seat; })) }),
        el("td", { text: outcome }),
        el("td", { class: "gn-num", text: typeof row[7] === "number" ? String(row[7]) : "\u2014" }));
    }

    function seats(item, list) { // "assoc-sharp \u00d73 (non-chameleon), assoc (chameleon)"
      var row = item.row;
      var agents = list.map(function (seat) { return row[2][seat]; });
      // Roles tell agents apart; when one agent plays every seat listed they add nothing.
      var roles = item.game.roles.length > 1 && agents.some(function (a) { return a !== agents[0]; });
      var groups = new Map(); // "label (role)" -> seats, in order of first appearance
      list.forEach(function (seat) {
        var role = roles ? " (" + R.words(item.game.roles[row[6][seat]], "-") + ")" : "";
        var key = JSON.stringify([manifest.agents[row[2][seat]], role]);
        if (!groups.has(key)) groups.set(key, { label: manifest.agents[row[2][seat]], role: role, count: 0 });
        groups.get(key).count += 1;
      });
      return Array.from(groups.values()).map(function (g) {
        return g.label + (g.count > 1 ? " \u00d7" + g.count : "") + g.role;
      }).join(", ");
    }

    function writeAddress() {
      var query = new URLSearchParams();
      FILTERS.forEach(function (f) { if (chosen[f]) query.set(f, chosen[f]); });
      if (page > 1) query.set("page", String(page));
      var url = new URL(window.location.href);
      url.search = query.toString();
      window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
    }

    function onChange(event) {
      var name = event.target.name;
      if (FILTERS.indexOf(name) < 0) return;
      chosen[name] = event.target.value;
      if (name === "game") { chosen.outcome = ""; }
      page = 1;
      update();
    }

    function onReset(event) {
      event.preventDefault();
      FILTERS.forEach(function (f) { chosen[f] = ""; });
      page = 1;
      update();
    }

    return function stop() { abort.abort(); };
  }
});
