/* gamenight site: sortable and filterable tables, and Plotly charts fed by JSON files.
   Runs on every page change of Material's instant navigation (document$). Strings from replays
   reach the DOM through textContent only, and reach Plotly escaped (Plotly reads a few HTML tags
   in labels). */
(function () {
  "use strict";

  var ROOT = new URL("../../", document.currentScript.src);
  var PLOTLY_SRC = new URL("assets/gamenight/plotly.min.js", ROOT).href;
  var plotlyReady = null;
  var dataCache = new Map();
  var chartObserver = null;
  var rendered = [];

  /* ---------- tables ---------- */

  function cellKey(cell, type) {
    var raw = cell && cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : (cell ? cell.textContent.trim() : "");
    if (type === "number") {
      var value = parseFloat(raw);
      return isNaN(value) ? null : value;
    }
    return raw === "" ? null : raw.toLowerCase();
  }

  function compareKeys(a, b, type) {
    if (type === "number") return a - b;
    return a.localeCompare(b, undefined, { numeric: true });
  }

  function sortTable(table, column, descending) {
    var header = table.tHead.rows[0].cells[column];
    var type = header.getAttribute("data-sort-type") || "text";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var pinned = rows.filter(function (row) { return row.classList.contains("gn-total"); });
    var movable = rows.filter(function (row) { return !row.classList.contains("gn-total"); });
    movable.sort(function (x, y) {
      var a = cellKey(x.cells[column], type);
      var b = cellKey(y.cells[column], type);
      if (a === null && b === null) return 0;
      if (a === null) return 1;   /* absent values stay last in both directions */
      if (b === null) return -1;
      var order = compareKeys(a, b, type);
      return descending ? -order : order;
    });
    movable.concat(pinned).forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  function initSortable(table) {
    if (!table.tHead || !table.tBodies.length || table.hasAttribute("data-gn-ready")) return;
    table.setAttribute("data-gn-ready", "");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      if (!th.hasAttribute("data-sort-type")) return;
      th.tabIndex = 0;
      th.classList.add("gn-sortable");
      var activate = function () {
        var current = th.getAttribute("aria-sort");
        var descending = current ? current === "ascending" : th.getAttribute("data-sort-type") === "number";
        sortTable(table, column, descending);
      };
      th.addEventListener("click", function (event) {
        if (event.target.closest && event.target.closest(".gn-help")) return;  // the "?" explains, it does not sort
        activate();
      });
      th.addEventListener("keydown", function (event) {
        if (event.target !== th) return;
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); activate(); }
      });
    });
  }

  function initFilters(box) {
    var table = document.getElementById(box.getAttribute("data-gn-filters"));
    if (!table || box.hasAttribute("data-gn-ready")) return;
    box.setAttribute("data-gn-ready", "");
    var selects = Array.prototype.slice.call(box.querySelectorAll("select[data-gn-filter]"));
    var counter = box.querySelector("[data-gn-count]");
    var params = new URLSearchParams(location.search);
    selects.forEach(function (select) {
      var wanted = params.get(select.getAttribute("data-gn-filter"));
      if (wanted !== null && Array.prototype.some.call(select.options, function (o) { return o.value === wanted; })) {
        select.value = wanted;
      }
    });
    var apply = function () {
      var rows = table.tBodies[0].rows;
      var shown = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var keep = selects.every(function (select) {
          if (!select.value) return true;
          var value = row.getAttribute("data-" + select.getAttribute("data-gn-filter")) || "";
          /* data-gn-list: the row holds a space-separated list (games); otherwise one exact value */
          return select.hasAttribute("data-gn-list") ? value.split(" ").indexOf(select.value) !== -1
            : value === select.value;
        });
        row.hidden = !keep;
        if (keep) shown += 1;
      });
      if (counter) counter.textContent = shown + " of " + rows.length + " agents";
    };
    selects.forEach(function (select) {
      select.addEventListener("change", function () {
        apply();
        var query = new URLSearchParams(location.search);
        var name = select.getAttribute("data-gn-filter");
        if (select.value) query.set(name, select.value); else query.delete(name);
        var search = query.toString();
        history.replaceState(history.state, "", location.pathname + (search ? "?" + search : "") + location.hash);
      });
    });
    apply();
  }

  /* ---------- charts ---------- */

  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (!plotlyReady) {
      plotlyReady = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = PLOTLY_SRC;
        script.onload = function () { resolve(window.Plotly); };
        script.onerror = function () { plotlyReady = null; reject(new Error("could not load " + PLOTLY_SRC)); };
        document.head.appendChild(script);
      });
    }
    return plotlyReady;
  }

  function loadData(path) {
    var url = new URL(path, ROOT).href;
    if (!dataCache.has(url)) {
      dataCache.set(url, fetch(url).then(function (response) {
        if (!response.ok) throw new Error(url + ": HTTP " + response.status);
        return response.json();
      }));
    }
    return dataCache.get(url);
  }

  /* Plotly reads <br>, <b>, <a href> and entities in labels: escape anything from the data. */
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function probeColor(cssColor) {
    var probe = document.createElement("span");
    probe.style.color = cssColor;
    probe.style.display = "none";
    document.body.appendChild(probe);
    var value = getComputedStyle(probe).color;
    probe.remove();
    return value;
  }

  function theme() {
    var fg = probeColor("var(--md-default-fg-color)");
    var grid = probeColor("var(--md-default-fg-color--lightest)");
    var line = probeColor("var(--md-default-fg-color--lighter)");
    var axis = { gridcolor: grid, zerolinecolor: line, linecolor: line, tickcolor: line, automargin: true };
    return {
      scheme: document.body.getAttribute("data-md-color-scheme") || "default",
      fg: fg,
      layout: {
        paper_bgcolor: "rgba(0,0,0,0)",
        plot_bgcolor: "rgba(0,0,0,0)",
        font: { color: fg, size: 12 },
        margin: { t: 48, r: 16, b: 48, l: 56 },
        legend: { orientation: "h", y: -0.22, font: { color: fg } },
        hoverlabel: { namelength: -1 },
        xaxis: Object.assign({}, axis),
        yaxis: Object.assign({}, axis),
        polar: {
          bgcolor: "rgba(0,0,0,0)",
          radialaxis: { range: [0, 1], gridcolor: grid, linecolor: line, tickfont: { size: 10 } },
          angularaxis: { gridcolor: grid, linecolor: line }
        }
      }
    };
  }

  function merge(base, extra) {
    var out = Object.assign({}, base);
    Object.keys(extra).forEach(function (key) {
      var value = extra[key];
      out[key] = value && typeof value === "object" && !Array.isArray(value) && base[key] && typeof base[key] === "object"
        ? merge(base[key], value) : value;
    });
    return out;
  }

  function closeLoop(values) { return values.concat(values.slice(0, 1)); }

  function radarTrace(agent, axes, values, name) {
    values = values || agent.values;  // an axis not measured stays null: a gap, not a 0
    var text = values.map(function (v) { return v === null ? "not measured" : v.toFixed(3); });
    return {
      // A filled shape only when every axis is measured: a fill across a gap would draw an area
      // that was never measured.
      type: "scatterpolar", mode: "lines+markers", opacity: 0.85, connectgaps: false,
      fill: values.indexOf(null) >= 0 ? "none" : "toself",
      r: closeLoop(values), theta: closeLoop(axes.map(esc)), text: closeLoop(text),
      name: esc(name || agent.label), hovertemplate: "%{theta}: %{text}<extra>%{fullData.name}</extra>"
    };
  }

  /* The agents to compare with come from the chart's data, not the page (a page listing every
     agent would make N pages of N names): filled in once, by label, keeping the choice made. */
  function fillCompare(select, data, own) {
    if (!select || select.hasAttribute("data-gn-filled")) return;
    select.setAttribute("data-gn-filled", "");
    var chosen = select.value;
    var slugs = Object.keys(data.agents).filter(function (slug) { return slug !== own; });
    slugs.sort(function (a, b) {
      var x = data.agents[a].label, y = data.agents[b].label;
      return x < y ? -1 : x > y ? 1 : (a < b ? -1 : 1);
    });
    var options = document.createDocumentFragment();
    var nobody = select.options[0];
    slugs.forEach(function (slug) {
      var option = document.createElement("option");
      option.value = slug;
      option.textContent = data.agents[slug].label;
      options.appendChild(option);
    });
    select.replaceChildren(nobody, options);
    select.value = chosen && data.agents[chosen] ? chosen : "";
  }

  var BUILDERS = {
    radar: function (el, data) {
      var select = document.querySelector("select[data-gn-compare='" + el.id + "']");
      fillCompare(select, data, el.getAttribute("data-agent"));
      var picks = [el.getAttribute("data-agent"), select ? select.value : ""];
      var traces = picks.filter(function (slug, i) { return slug && data.agents[slug] && picks.indexOf(slug) === i; })
        .map(function (slug) { return radarTrace(data.agents[slug], data.axes); });
      // The agent in the other MAgIC reading, on request, dashed and labelled with the reading.
      var toggle = document.querySelector("input[data-gn-reading='" + el.id + "']");
      var own = data.agents[picks[0]];
      if (toggle && toggle.checked && own && own.other && data.readings) {
        traces[0].name = esc(own.label + " (" + data.readings.headline + ")");  // both readings drawn: both named
        var trace = radarTrace(own, data.axes, own.other.values, own.label + " (" + data.readings.other + ")");
        trace.line = { dash: "dash" };
        trace.fill = "none";
        traces.push(trace);
      }
      return { data: traces, layout: { showlegend: true, margin: { t: 32, r: 72, b: 64, l: 72 } } };
    },
    wins: function (el, data) {
      // One bar per agent: its seat win rate in this game, with the 95% interval as whiskers.
      var rows = data[el.getAttribute("data-game")] || [];
      // Long names keep their end, where strategies differ ("prisoners_dilemma/always_defect").
      var short = function (label) { return label.length > 24 ? "\u2026" + label.slice(-23) : label; };
      return {
        data: [{
          type: "bar", orientation: "h", x: rows.map(function (r) { return r.value; }),
          y: rows.map(function (r, i) { return esc(short(r.label)) + (r.self_play ? " (self-play)" : "") + "\u200b".repeat(i); }),
          customdata: rows.map(function (r) { return [esc(r.label), r.n]; }),
          marker: { color: rows.map(function (r) { return r.self_play ? "rgba(128,128,128,0.6)" : "rgba(63,81,181,0.8)"; }) },
          error_x: {
            type: "data", symmetric: false,
            array: rows.map(function (r) { return r.ci ? r.ci[1] - r.value : 0; }),
            arrayminus: rows.map(function (r) { return r.ci ? r.value - r.ci[0] : 0; })
          },
          hovertemplate: "%{customdata[0]}: %{x:.1%} of %{customdata[1]} seats<extra></extra>"
        }],
        layout: {
          height: 90 + 26 * rows.length,
          xaxis: { range: [0, 1], tickformat: ".0%", title: { text: "seat win rate" } },
          yaxis: { type: "category", autorange: "reversed", automargin: true },
          margin: { t: 16, r: 16, b: 48, l: 8 }, showlegend: false
        }
      };
    },
    cost: function (el, data) {
      // Strength (up) against mean cost per game (across), each row with its 95% interval, and
      // the cost frontier: the best strength to be had at each cost, a step through its rows
      // carried on to the dearest row.
      // data-where is the chart's path in data/cost.json: "ranked", "games.chameleon", "tokens.overall".
      var chart = el.getAttribute("data-where").split(".").reduce(function (at, key) { return at[key]; }, data);
      var points = chart.points;
      // The cost axis: dollars at list prices, or what every model row records (tokens, model-seconds).
      var dollars = !chart.measure || chart.measure === "usd";
      var spent = function (x) {
        if (dollars) return "$" + x.toPrecision(3) + " per game";
        if (chart.measure === "tokens") return Math.round(x).toLocaleString("en") + " tokens per game";
        return x.toFixed(1) + " model-seconds per game";
      };
      var costs = points.map(function (p) { return p.cost; });
      var low = Math.min.apply(null, costs), high = Math.max.apply(null, costs);
      var logScale = low > 0 && high / low > 20;  // costs orders of magnitude apart: a log axis
      var scale = chart.percent ? 100 : 1;
      var shown = function (v) { return chart.percent ? (v * 100).toFixed(1) + "%" : v.toFixed(0); };
      var short = function (label) { return label.length > 18 ? label.slice(0, 17) + "\u2026" : label; };
      var group = function (onFrontier, name, color) {
        var rows = points.filter(function (p) { return p.frontier === onFrontier; });
        return {
          type: "scatter", mode: "markers+text", name: name,
          x: rows.map(function (p) { return p.cost; }), y: rows.map(function (p) { return p.value * scale; }),
          // Many rows (a chart of every model row's tokens): only the frontier's names, so they
          // stay readable; the table under the chart names every point.
          text: rows.map(function (p) { return dollars || onFrontier || points.length <= 6 ? esc(short(p.label)) : ""; }),
          // Beside the point, clear of its whisker; the dearest row's name to its left, inside the plot.
          textposition: rows.map(function (p) { return p.cost === high ? "middle left" : "middle right"; }),
          cliponaxis: false, marker: { size: 10, color: color },
          error_y: {
            type: "data", symmetric: false, color: color, thickness: 1.5,
            array: rows.map(function (p) { return p.ci ? (p.ci[1] - p.value) * scale : 0; }),
            arrayminus: rows.map(function (p) { return p.ci ? (p.value - p.ci[0]) * scale : 0; })
          },
          customdata: rows.map(function (p) { return [esc(p.label), spent(p.cost), shown(p.value), p.games]; }),
          hovertemplate: "%{customdata[0]}<br>%{customdata[1]} over %{customdata[3]} games<br>" +
                         esc(chart.axis) + " %{customdata[2]}<br>" + name + "<extra></extra>"
        };
      };
      var best = points.filter(function (p) { return p.frontier; });
      var stepX = best.map(function (p) { return p.cost; }), stepY = best.map(function (p) { return p.value * scale; });
      if (best.length && high > stepX[stepX.length - 1]) { stepX.push(high); stepY.push(stepY[stepY.length - 1]); }
      return {
        data: [
          { type: "scatter", mode: "lines", name: "cost frontier", x: stepX, y: stepY,
            line: { shape: "hv", dash: "dot", color: "rgba(63,81,181,0.9)" }, hoverinfo: "skip" },
          group(true, "on the cost frontier", "rgba(63,81,181,0.95)"),
          group(false, dollars ? "a cheaper row is stronger" : "a row spending less is stronger", "rgba(128,128,128,0.8)")
        ],
        layout: {
          height: 400,
          xaxis: { type: logScale ? "log" : "linear", title: { text: esc(chart.title || "mean cost per game (USD, list prices)") },
                   tickprefix: dollars ? "$" : "", rangemode: logScale ? undefined : "tozero" },
          yaxis: { title: { text: esc(chart.axis) }, ticksuffix: chart.percent ? "%" : "" },
          legend: { orientation: "h", y: -0.28 },
          margin: { t: 24, r: 24, b: 80, l: 56 }
        }
      };
    },
    history: function (el, data) {
      // The board over time (history.md): a line per row or agent, a point per merge of replays that
      // moved this board, evenly spaced (merges come in bursts: a time axis would pile them up).
      var board = data.boards[el.getAttribute("data-board")];
      var x = board.points.map(function (p) { return p.day.slice(5) + "<br>" + p.commit; });
      var percent = board.percent;
      // A legend entry keeps a phone's width: a long name keeps its end; the hover gives it whole.
      var room = el.clientWidth < 600 ? 34 : 60;
      var short = function (name) { return name.length > room ? "\u2026" + name.slice(-(room - 1)) : name; };
      var traces = board.lines.map(function (line) {
        return {
          type: "scatter", mode: "lines+markers", connectgaps: false, x: x, y: line.y, name: esc(short(line.name)),
          meta: [esc(line.name)],
          customdata: board.points.map(function (p, i) {
            var ci = line.ci[i];
            return [p.day, p.commit, ci ? " [" + (ci[0] * 100).toFixed(1) + ", " + (ci[1] * 100).toFixed(1) + "]" : ""];
          }),
          hovertemplate: "%{meta[0]}<br>%{customdata[0]}, commit %{customdata[1]}<br>" +
            (percent ? "score %{y:.1%}%{customdata[2]}" : "rating %{y:.0f}") + "<extra></extra>"
        };
      });
      var rows = Math.ceil(board.lines.length / (el.clientWidth < 600 ? 1 : 3));
      return {
        data: traces,
        layout: {
          height: 340 + 22 * rows,
          // Labels stay level (turned, they ran into the legend); as many as fit, the rest on hover.
          xaxis: { type: "category", title: { text: "merge (date, commit)" }, tickangle: 0,
                   nticks: Math.max(2, Math.floor((el.clientWidth - 90) / 70)) },
          yaxis: percent ? { range: [0, 1], tickformat: ".0%", title: { text: esc(board.axis) } }
                         : { title: { text: esc(board.axis) } },
          legend: { orientation: "h", y: -0.25, yanchor: "top" },
          margin: { t: 16, r: 16, b: 48, l: 56 }, showlegend: true
        }
      };
    },
    heatmap: function (el, data) {
      var variant = data.variants.find(function (v) { return v.key === el.getAttribute("data-variant"); });
      var metric = variant.metrics[el.getAttribute("data-metric")];
      var empty = metric.z.every(function (row) { return row.every(function (v) { return v === null; }); });
      return {
        data: [{
          type: "heatmap", z: metric.z, x: variant.non_chameleon.map(esc), y: variant.chameleon.map(esc),
          text: metric.text.map(function (row) { return row.map(esc); }),
          hovertemplate: "chameleon: %{y}<br>non-chameleons: %{x}<br>%{text}<extra></extra>",
          texttemplate: "%{z:.0%}", zmin: 0, zmax: 1, colorscale: "Viridis", xgap: 2, ygap: 2,
          colorbar: { tickformat: ".0%", thickness: 12 }
        }],
        layout: {
          title: { text: esc(metric.title), font: { size: 14 } },
          xaxis: { type: "category", title: { text: "non-chameleon agent" } },
          yaxis: { type: "category", title: { text: "chameleon agent" } },
          margin: { t: 40, r: 8, b: 40, l: 40 },
          annotations: empty ? [{ text: "no game to rate", showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }] : []
        }
      };
    },
    entropy: function (el, data) {
      var curve = data.posterior[Number(el.getAttribute("data-index"))];
      var ci = curve.entropy_ci;
      return {
        data: [{
          type: "scatter", mode: "lines+markers", x: curve.m, y: curve.entropy, name: esc(curve.non_chameleon),
          error_y: {
            type: "data", symmetric: false,
            array: curve.entropy.map(function (v, i) { return ci[i] ? ci[i][1] - v : 0; }),
            arrayminus: curve.entropy.map(function (v, i) { return ci[i] ? v - ci[i][0] : 0; })
          }
        }],
        layout: {
          title: { text: "Posterior entropy (bits)", font: { size: 14 } },
          xaxis: { title: { text: "non-chameleon clues heard" }, dtick: 1 },
          yaxis: { title: { text: "bits" }, range: [0, curve.prior_bits * 1.05] },
          showlegend: false
        }
      };
    },
    topk: function (el, data) {
      var curve = data.posterior[Number(el.getAttribute("data-index"))];
      return {
        data: curve.top_k.map(function (point) {
          return { type: "scatter", mode: "lines+markers", x: point.k, y: point.value,
                   name: point.m === 0 ? "prior" : "after " + point.m + " clue" + (point.m > 1 ? "s" : "") };
        }),
        layout: {
          title: { text: "Secret among the k most likely words", font: { size: 14 } },
          xaxis: { title: { text: "k" }, dtick: 2 },
          yaxis: { title: { text: "rate" }, range: [0, 1.02], tickformat: ".0%" }
        }
      };
    },
    bounds: function (el, data) {
      var t = data.theory[Number(el.getAttribute("data-index"))];
      var flat = function (value, name, dash) {
        return { type: "scatter", mode: "lines", x: [0, 4], y: [value, value], name: name, line: { dash: dash } };
      };
      var traces = [
        { type: "scatter", mode: "lines", x: t.prop1.alpha, y: t.prop1.value, name: "Prop. 1 upper bound (α-KL concealing)" },
        { type: "scatter", mode: "lines", x: t.prop2.alpha, y: t.prop2.value, name: "Prop. 2 upper bound, as stated (α-L1 revealing)" },
        { type: "scatter", mode: "lines", x: t.prop2.alpha, y: t.prop2.proof_value, name: "Prop. 2 upper bound, as proved", line: { dash: "dot" } },
        flat(t.trivial, "trivial strategy", "dash")
      ];
      if (t.prop3) traces.push(flat(t.prop3.bound, "Prop. 3 lower bound (π amb, l = " + t.prop3.l + ")", "dashdot"));
      return {
        data: traces,
        layout: {
          title: { text: "Bounds on the non-chameleon win rate", font: { size: 14 } },
          xaxis: { title: { text: "α" }, range: [0, 4] },
          yaxis: { title: { text: "win probability" }, range: [0, 1], tickformat: ".0%" },
          legend: { orientation: "h", y: -0.3 }
        }
      };
    },
    measured: function (el, data) {
      var t = data.theory[Number(el.getAttribute("data-index"))];
      var labels = t.measured.map(function (m) { return esc(m.label); });
      var refs = [[t.trivial, "trivial (K-1)/(NK)", "dash"], [t.prop1.value[0], "Prop. 1 at α = 0: 1/N", "dot"]];
      if (t.prop3) {
        refs.push([t.prop3.bound, "Prop. 3 lower bound", "dashdot"]);
        refs.push([t.prop3.ambiguity_win, "π amb exact", "longdash"]);
      }
      var traces = [{
        type: "scatter", mode: "markers", x: labels, y: t.measured.map(function (m) { return m.value; }),
        name: "measured (95% interval)", marker: { size: 9 },
        text: t.measured.map(function (m) { return esc(m.variant) + ", " + m.games + " games"; }),
        hovertemplate: "%{x}<br>%{text}<br>non-chameleon win %{y:.1%}<extra></extra>",
        error_y: {
          type: "data", symmetric: false,
          array: t.measured.map(function (m) { return m.ci && m.value !== null ? m.ci[1] - m.value : 0; }),
          arrayminus: t.measured.map(function (m) { return m.ci && m.value !== null ? m.value - m.ci[0] : 0; })
        }
      }];
      refs.forEach(function (ref) {
        traces.push({ type: "scatter", mode: "lines", x: [labels[0], labels[labels.length - 1]], y: [ref[0], ref[0]],
                      name: ref[1], line: { dash: ref[2] }, hoverinfo: "name+y" });
      });
      return {
        data: traces,
        layout: {
          title: { text: "Measured non-chameleon win rates", font: { size: 14 } },
          xaxis: { type: "category", tickangle: -20 },
          yaxis: { title: { text: "win rate" }, range: [0, 1], tickformat: ".0%" },
          legend: { orientation: "h", y: -0.45 },
          margin: { b: 120 }
        }
      };
    }
  };

  function draw(el) {
    var kind = el.getAttribute("data-gn-chart");
    return Promise.all([loadPlotly(), loadData(el.getAttribute("data-src"))]).then(function (loaded) {
      var Plotly = loaded[0];
      var spec = BUILDERS[kind](el, loaded[1]);
      var look = theme();
      var layout = merge(look.layout, spec.layout);
      return Plotly.react(el, spec.data, layout, { responsive: true, displaylogo: false }).then(function () {
        el.setAttribute("data-gn-scheme", look.scheme);
        el.setAttribute("data-gn-rendered", "");
        if (rendered.indexOf(el) === -1) rendered.push(el);
      });
    }).catch(function (err) {
      var note = document.createElement("p");
      note.className = "gn-chart-error";
      note.textContent = "This chart could not be drawn: " + err.message;
      el.replaceChildren(note);
      throw err;
    });
  }

  function initCharts() {
    if (chartObserver) chartObserver.disconnect();
    rendered = rendered.filter(function (el) { return el.isConnected; });
    var charts = document.querySelectorAll("[data-gn-chart]");
    if (!charts.length) return;
    chartObserver = new IntersectionObserver(function (entries, observer) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        observer.unobserve(entry.target);
        draw(entry.target);
      });
    }, { rootMargin: "300px 0px" });
    Array.prototype.forEach.call(charts, function (el) { chartObserver.observe(el); });
    Array.prototype.forEach.call(document.querySelectorAll("select[data-gn-compare], input[data-gn-reading]"), function (input) {
      input.addEventListener("change", function () {
        var chart = document.getElementById(input.getAttribute("data-gn-compare") || input.getAttribute("data-gn-reading"));
        if (chart && chart.hasAttribute("data-gn-rendered")) draw(chart);
      });
    });
  }

  /* Re-draw every chart on the page when the reader toggles light/dark. */
  new MutationObserver(function () {
    rendered = rendered.filter(function (el) { return el.isConnected; });
    rendered.forEach(function (el) { draw(el); });
  }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

  /* "?" buttons beside column names: a tap, a click or Enter shows the explanation (text, never
     markup) under the button; a second press, Escape or a press elsewhere hides it. */
  var helpBox = null, helpFor = null;

  function hideHelp() {
    if (helpFor) helpFor.setAttribute("aria-expanded", "false");
    if (helpBox) helpBox.hidden = true;
    helpFor = null;
  }

  function showHelp(button) {
    if (!helpBox || !helpBox.isConnected) {
      helpBox = document.createElement("div");
      helpBox.className = "gn-help-box";
      helpBox.setAttribute("role", "note");
      helpBox.id = "gn-help-box";
      document.body.appendChild(helpBox);
    }
    hideHelp();
    helpBox.textContent = button.getAttribute("data-gn-help");
    var box = button.getBoundingClientRect();
    helpBox.style.top = (window.scrollY + box.bottom + 6) + "px";
    helpBox.style.left = Math.max(8, Math.min(window.scrollX + box.left - 120,
      window.scrollX + document.documentElement.clientWidth - 288)) + "px";
    helpBox.hidden = false;
    button.setAttribute("aria-expanded", "true");
    button.setAttribute("aria-describedby", "gn-help-box");
    helpFor = button;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".gn-help") : null;
    if (!button) { if (helpBox && !helpBox.contains(event.target)) hideHelp(); return; }
    event.stopPropagation();
    if (helpFor === button) hideHelp(); else showHelp(button);
  }, true);
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") hideHelp(); });

  /* ---------- tables that fit ---------- */

  /** The tables of the page's article that are wider than their box, made to fit (fit.js). */
  /* A table box that scrolls sideways must be reachable by keyboard (axe: scrollable-region-focusable):
     one that overflows becomes a named, focusable region; one that fits is left out of the tab order. */
  function tableName(box) {
    var caption = box.querySelector("caption");
    if (caption && caption.textContent.trim()) return caption.textContent.trim();
    for (var el = box.previousElementSibling; el; el = el.previousElementSibling) {
      if (/^H[1-6]$/.test(el.tagName)) return "Table under " + el.textContent.replace(/\u00b6/g, "").trim();
    }
    return "Table";
  }

  function reachScrollingTables() {
    var named = {};  // each region's name is unique on the page (axe: landmark-unique)
    function reach(box, name) {
      if (box.scrollWidth > box.clientWidth + 1) {
        named[name] = (named[name] || 0) + 1;
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", name + (named[name] > 1 ? " (" + named[name] + ")" : "") + ", scrolls sideways");
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    }
    Array.prototype.forEach.call(document.querySelectorAll("article .md-typeset__scrollwrap"), function (box) {
      reach(box, tableName(box));
    });
    // A display formula wider than a phone scrolls in its own box (methodology pages), like a table.
    Array.prototype.forEach.call(document.querySelectorAll("article .gn-math-block"), function (box) {
      reach(box, "Formula");
    });
  }

  function fitTables() {
    if (window.gamenightFit) window.gamenightFit.fitAll(document.querySelectorAll("article table.gn-table"));
    reachScrollingTables();
  }

  var fitTimer = null;
  function fitSoon() {
    if (fitTimer) clearTimeout(fitTimer);
    fitTimer = setTimeout(fitTables, 100);
  }
  window.addEventListener("resize", fitSoon);
  window.gamenight = { fitTables: fitTables };  // for pages that draw rows later (the replay list)
  document.addEventListener("toggle", function (event) {
    if (event.target.open) fitTables();
  }, true);

  /* A link to a closed disclosure (the other MAgIC reading: "a tap away") opens it as it goes there:
     one tap, not a second one on its summary. */
  function openLinkedDisclosure(hash) {
    var target = hash && hash.length > 1 ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[href^='#']") : null;
    if (link) openLinkedDisclosure(link.getAttribute("href"));
  });

  function nameSearchDialog() {
    // The theme's search panel is a dialog without a name (axe: aria-dialog-name): give it one.
    var dialog = document.querySelector(".md-search[role='dialog']");
    if (dialog && !dialog.hasAttribute("aria-label")) dialog.setAttribute("aria-label", "Search");
  }

  /* The exhibition table and its filters were on the home page: an old address of them (/?game=chameleon,
     /#gn-overall) goes on to their own page. (An old /#board-<game> lands on that game's line.) */
  function followMoved() {
    var moved = document.querySelector("[data-gn-moved]");
    if (!moved) return;
    var params = new URLSearchParams(location.search);
    var filtered = ["game", "provider", "design"].some(function (name) { return params.has(name); });
    if (filtered || location.hash === "#gn-overall") {
      location.replace(moved.getAttribute("data-gn-moved") + location.search + location.hash);
    }
  }

  function init() {
    followMoved();
    nameSearchDialog();
    openLinkedDisclosure(window.location.hash);
    hideHelp();
    Array.prototype.forEach.call(document.querySelectorAll("table[data-gn-sortable]"), initSortable);
    Array.prototype.forEach.call(document.querySelectorAll("[data-gn-filters]"), initFilters);
    fitTables();
    initCharts();
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
