/* gamenight replay viewer: step through one game as any player saw it, or with everything shown.
 *
 * The page's address says what to show: ?id=<game id>&step=<n>&pov=<seat> (no pov: everything).
 * `event=<n>` may stand for `step` and opens the step of the replay's event number n.
 * Step 0 is the deal, steps 1..N the replay's events and probes in order, step N+1 the outcome.
 * In a player's view only the steps whose `vis` is "all" or names that seat are shown, with
 * the setup that seat was dealt, and nobody else's refused attempts or model exchanges.
 */
(function (install) {
  // Material inserts a page's scripts all at once on instant navigation, so this file may run
  // before common.js: it then waits in a queue that common.js empties.
  if (window.gamenightReplays) install(window.gamenightReplays);
  else (window.gamenightReplaysWaiting = window.gamenightReplaysWaiting || []).push(install);
})(function (R) {
  "use strict";
  if (R.viewerLoaded) return;
  R.viewerLoaded = true;
  var el = R.el, fill = R.fill, words = R.words;

  R.onEachPage("[data-gn-viewer]", start);

  function start(root) {
    var abort = new AbortController();
    var viewer = null;
    var message = root.querySelector(".gn-message");
    var params = new URLSearchParams(window.location.search);
    var id = params.get("id");
    var backLink = function (text) { return R.link(root.dataset.index, {}, {}, text); };
    if (!id) {
      fill(message, "No replay is chosen. ", backLink("Pick one from the list of replays."));
    } else if (!R.SLUG.test(id)) {
      fill(message, "This address does not name a replay. ", backLink("Back to the list of replays."));
    } else {
      R.fetchReplay(root.dataset, "data", id, abort.signal).then(function (data) {
        if (!abort.signal.aborted) viewer = createViewer(root, data, params, abort.signal);
      }).catch(function (error) {
        if (abort.signal.aborted) return;
        fill(message, "This replay could not be loaded (" + error.message + "). ", backLink("Back to the list of replays."));
      });
    }
    return function stop() {
      abort.abort();
      if (viewer) viewer.destroy();
    };
  }

  function createViewer(root, data, params, signal) {
    var players = data.players;
    var last = data.steps.length + 1; // the outcome step
    var $ = function (selector) { return root.querySelector(selector); };
    var slider = $(".gn-slider"), povSelect = $(".gn-pov"), probesBox = $(".gn-probes"), fullBox = $(".gn-full");
    var pov = parsePov(params.get("pov"));
    // Belief probes (private questions asked outside the game) are hidden unless asked for, or
    // unless the address points at one (a permalink to a probe still opens it).
    var showProbes = params.get("probes") === "1" || isProbe(parseStepRaw());
    var visible = visibleSteps();
    var step = snap(parseStep());
    var rawOpen = false;
    var calls = null; // the promise of the LLM-exchange sidecar, fetched on demand

    // -- address ------------------------------------------------------------------------------
    function parsePov(text) {
      if (text === null || text === "" || text === "all") return null;
      var seat = /^[0-9]{1,3}$/.test(text) ? Number(text) : NaN;
      return seat < players.length ? seat : null;
    }

    function isProbe(index) { return index > 0 && index < last && data.steps[index - 1].k === "probe"; }

    function parseStepRaw() {
      var text = params.get("step");
      return text !== null && /^[0-9]{1,6}$/.test(text) ? Math.min(Number(text), last) : 0;
    }

    function parseStep() {
      var text = params.get("step");
      if (text !== null && /^[0-9]{1,6}$/.test(text)) return Math.min(Number(text), last);
      var event = params.get("event");
      if (event !== null && /^[0-9]{1,6}$/.test(event)) {
        for (var i = 0; i < data.steps.length; i++) if (data.steps[i].n === Number(event)) return i + 1;
      }
      return 0;
    }

    function writeAddress() {
      var query = new URLSearchParams({ id: data.id, step: String(step) });
      if (pov !== null) query.set("pov", String(pov));
      if (showProbes) query.set("probes", "1");
      var url = new URL(window.location.href);
      url.search = query.toString();
      window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
    }

    // -- who sees what ------------------------------------------------------------------------
    function sees(index) {
      if (!showProbes && isProbe(index)) return false;
      if (index === 0 || index === last || pov === null) return true;
      var vis = data.steps[index - 1].v;
      return vis === "all" || (Array.isArray(vis) && vis.indexOf(pov) >= 0);
    }

    function visibleSteps() {
      var list = [];
      for (var i = 0; i <= last; i++) if (sees(i)) list.push(i);
      return list;
    }

    function snap(target) { // the last step at or before `target` that this view shows
      var found = 0;
      visible.forEach(function (i) { if (i <= target) found = i; });
      return found;
    }

    var view = R.pointOfView(data, { pov: function () { return pov; }, step: function () { return step; } });
    var revealed = view.revealed, knowsRole = view.knowsRole, privateTo = view.privateTo;

    var name = view.name, describe = view.describe, value = view.value;
    // -- the game so far, per seat ------------------------------------------------------------
    function seenSoFar() {
      var list = [];
      for (var i = 1; i <= Math.min(step, last - 1); i++) if (sees(i)) list.push(data.steps[i - 1]);
      return list;
    }

    function currentBoard() { return view.board(seenSoFar()); }
    // -- rendering ----------------------------------------------------------------------------
    function render() {
      var position = visible.indexOf(step);
      // One number for a moment: the step shown is the step in the address, counted over the whole
      // game; a player's view skips the steps it never saw (the slider moves over those it saw).
      var where = step === 0 ? "The deal" : step === last ? "The outcome" : "Step " + step + " of " + (last - 1);
      fill($(".gn-position"), where);
      slider.max = String(visible.length - 1);
      slider.value = String(position);
      slider.setAttribute("aria-valuetext", $(".gn-position").textContent);
      root.querySelectorAll("[data-go]").forEach(function (button) {
        var go = button.dataset.go;
        button.disabled = (go === "first" || go === "prev") ? position === 0 : position === visible.length - 1;
      });
      renderHead();
      var b = currentBoard();
      renderPlayers(b);
      renderStep();
      renderState(b);
      renderSetup();
      renderHistory();
      root.dataset.step = String(step);
      root.dataset.pov = pov === null ? "all" : String(pov);
      writeAddress();
      R.fitTables();  // the players' table fits the screen
    }

    function renderHead() {
      var variant = Object.keys(data.variant).map(function (k) { return words(k) + " " + data.variant[k]; }).join(", ");
      fill($(".gn-title"), el("strong", { text: data.title }), variant ? " \u2014 " + variant : "");
      var meta = [data.tournament, data.created, data.id];
      if (pov === null || revealed("roles")) {
        // Who played whom and how it ended, as soon as the roles are no secret in this view.
        meta.splice(1, 0, data.matchup);
        meta.unshift("result: " + (data.outcome.status === "complete" ? data.outcome.summary : "ended in a forfeit"));
      }
      fill($(".gn-meta"), meta.join(" \u00b7 "), sourceOf(data.source));
    }

    /** "source: pull request #12 by @alice", linked to the pull request when the site knows the repository. */
    function sourceOf(source) {
      if (!source || typeof source.label !== "string") return null;
      var label = source.label, url = null;
      try { url = typeof source.url === "string" ? new URL(source.url) : null; } catch (e) { url = null; }
      if (url && url.protocol === "https:") {
        label = el("a", { text: source.label });
        label.href = url.href;  // only an https address: never javascript: or data:
        label.rel = "noopener noreferrer";
      }
      return el("span", { class: "gn-source" }, " \u00b7 source: ", label);
    }

    function renderPlayers(b) { view.playersTable($(".gn-players"), b, step === last); }
    function renderStep() {
      var panel = $(".gn-step");
      if (step === 0) {
        fill(panel, el("p", { class: "gn-panel-title", text: "The deal" }),
          el("p", {}, pov === null
            ? "The cards are dealt. Step through the game with the buttons, the slider or the arrow keys."
            : "The cards are dealt. You see the game as " + name(pov) + " saw it."));
        return;
      }
      if (step === last) { renderOutcome(panel); return; }
      var s = data.steps[step - 1];
      var kind = s.k === "probe" ? "belief probe" : s.k === "action" ? words(s.p) : words(s.p) + " (" + s.k + ")";
      fill(panel, el("p", { class: "gn-panel-title" }, kind),
        el("p", { class: "gn-says" }, describe(s)),
        s.a && privateTo(s.s) ? attempts(s.a) : null,
        s.b && showProbes && privateTo(s.s) ? beliefs(s) : null,
        s.st && showProbes && privateTo(s.s) ? strategy(s) : null,
        s.c && privateTo(s.s) ? exchanges(s) : null);
    }

    /** A recorded Judgement as a list: each judged player's likeliest role and its chance. */
    function judgementList(judged) {
      return el("ul", {}, judged.map(function (row) {
        var seat = row[0], p = row[2];
        var known = typeof seat === "number" && seat >= 0 && seat < players.length;
        return el("li", { text: (known ? name(seat) : "?") + ": " + words(String(row[1]), "-") + ", " +
          (typeof p === "number" && isFinite(p) ? Math.round(p * 100) + "%" : "\u2014") });
      }));
    }

    /** A design's views of seat s as a table: its own row first, then each other player's as s imagines
        it; `cell(j, k)` gives the text (and class) of view j's entry for player k. */
    function viewTable(s, cell) {
      var order = [s.s].concat(players.map(function (_, j) { return j; }).filter(function (j) { return j !== s.s; }));
      var head = el("tr", {}, el("th", { scope: "col", text: "View" }),
        players.map(function (_, k) { return el("th", { scope: "col", text: name(k) }); }));
      var rows = order.map(function (j) {
        return el("tr", {}, el("th", { scope: "row", text: j === s.s ? "own view" : name(j) + ", imagined" }),
          players.map(function (_, k) { return el("td", cell(j, k)); }));
      });
      return el("div", { class: "gn-scroll" },
        el("table", { class: "gn-belief-table" }, el("thead", {}, head), el("tbody", {}, rows)));
    }

    function ratedText(b, unit) {
      return b.rated + " " + unit + (b.rated === 1 ? "" : "s") + " rated here" + (b.unread ? ", " + b.unread + " unreadable" : "");
    }

    /** The Strategy Decision's Judgement and plan before this move (collapsed, like the raw exchanges). */
    function strategy(s) {
      var st = s.st, judged = Array.isArray(st.judgement) ? st.judgement : null;
      if (Array.isArray(st.favor)) return favorNotes(s, st, judged);
      var list = judged === null ? el("p", { class: "gn-dim", text: "Judgement: not readable, so the plan was written without one." })
        : judged.length === 0 ? null : judgementList(judged);
      var plan = typeof st.plan === "string"
        ? el("blockquote", { class: "gn-plan", text: st.plan + (st.cut ? " [cut at 80 words]" : "") })
        : el("p", { class: "gn-dim", text: "Plan: not readable, so the move was asked without one." });
      return el("details", { class: "gn-beliefs" },
        el("summary", { text: "Strategy of " + name(s.s) + ": judgement and plan before this move" }),
        judged && judged.length ? el("p", { text: "Judgement, each other player's likeliest role:" }) : null, list,
        el("p", { text: "Plan:" }), plan);
    }

    /** The PGM expectations of a game-theory game: each player's likeliest next move, per view. */
    function expectedMoves(s) {
      var b = s.b;
      if (!Array.isArray(b.expected) || b.expected.length !== players.length) return null;
      var table = viewTable(s, function (j, k) {
        var cell = Array.isArray(b.expected[j]) ? b.expected[j][k] : null;
        var ok = Array.isArray(cell) && typeof cell[1] === "number" && isFinite(cell[1]);
        return { text: ok ? String(cell[0]) + " " + Math.round(cell[1] * 100) + "%" : "\u2014" };
      });
      return el("details", { class: "gn-beliefs" },
        el("summary", { text: "PGM expectations of " + name(s.s) + ": each player's likeliest next move (" +
          ratedText(b, "round") + ")" }),
        el("p", { class: "gn-dim", text: "Rows: " + name(s.s) + "'s own view, then each other player's view as " +
          name(s.s) + " imagines it; a player's own move is not guessed." }),
        table);
    }

    /** Favor Dynamics: the liking levels (1 to 100) and the Judgement they were updated with. */
    function favorNotes(s, st, judged) {
      var levels = st.favor.map(function (level, seat) {
        return typeof level === "number" && seat !== s.s ? el("li", { text: name(seat) + ": " + level }) : null;
      });
      var judgement = judged && judged.length ? judgementList(judged) : null;
      return el("details", { class: "gn-beliefs" },
        el("summary", { text: "Favor of " + name(s.s) + ": liking levels (1 to 100) at this step" }),
        el("ul", {}, levels), judgement ? el("p", { text: "Judgement it rated with:" }) : null, judgement);
    }

    /** The PGM design's suspicion views at this step, as a table (collapsed, like the raw exchanges). */
    function beliefs(s) {
      var b = s.b, n = players.length;
      if (b.about === "next move") return expectedMoves(s);
      if (!Array.isArray(b.views) || b.views.length !== n) return null;
      var table = viewTable(s, function (j, k) {
        var p = Array.isArray(b.views[j]) ? b.views[j][k] : null;
        return { class: "gn-num" + (k === b.aim && j === s.s ? " gn-aim" : ""),
                 text: typeof p === "number" && isFinite(p) ? Math.round(p * 100) + "%" : "\u2014" };
      });
      var summary = "PGM beliefs of " + name(s.s) + ": chance that each player is the " + words(b.about) +
        " (" + ratedText(b, "move") + ")";
      var aim = typeof b.aim === "number" && b.aim >= 0 && b.aim < n ? el("p", { class: "gn-dim", text: "Target of the move: " + name(b.aim) }) : null;
      var note = el("p", { class: "gn-dim", text: "Rows: " + name(s.s) + "'s own view, then each other player's view as " +
        name(s.s) + " imagines it (MAgIC's two-hop beliefs)." });
      return el("details", { class: "gn-beliefs" }, el("summary", { text: summary }), note, table, aim);
    }

    function attempts(list) {
      return el("div", { class: "gn-attempts" }, el("p", { text: "Refused before this move (" + list.length + "):" }),
        el("ol", {}, list.map(function (a) {
          var reply = a.raw === null ? null : [el("span", { class: "gn-dim", text: "reply " }), el("code", { text: a.raw }), " "];
          var read = a.action === null ? null
            : [el("span", { class: "gn-dim", text: "read as " }), el("code", { text: JSON.stringify(a.action) }), " "];
          return el("li", {}, reply, read, el("span", { class: "gn-dim", text: "refused: " }), a.error);
        })));
    }

    function exchanges(s) {
      var usage = s.c;
      var summary = "LLM raw exchanges: " + usage[0] + " call" + (usage[0] === 1 ? "" : "s") + ", " + usage[1] + " tokens in, " +
        usage[2] + " out, " + (usage[3] / 1000).toFixed(1) + " s";
      var body = el("div", { class: "gn-calls" }, "Loading the exchanges\u2026");
      var details = el("details", { class: "gn-raw", open: rawOpen }, el("summary", { text: summary }), body);
      var index = step - 1;
      var load = function () {
        if (!calls) calls = R.fetchReplay(root.dataset, "calls", data.id, signal);
        calls.then(function (sidecar) {
          var made = sidecar.steps[String(index)] || [];
          fill(body, made.map(function (call, i) { return renderCall(call, i, sidecar.texts); }));
        }).catch(function (error) {
          calls = null;
          if (!signal.aborted) fill(body, "The exchanges could not be loaded (" + error.message + ").");
        });
      };
      details.addEventListener("toggle", function () {
        rawOpen = details.open;
        if (details.open) load();
      });
      if (rawOpen) load();
      return details;
    }

    function renderCall(call, i, texts) {
      var facts = [];
      if (call.model_reported) facts.push(call.model_reported);
      if (call.finish_reason) facts.push("finish: " + call.finish_reason);
      if (call.input_tokens !== undefined) facts.push(call.input_tokens + " tokens in");
      if (call.output_tokens !== undefined) facts.push(call.output_tokens + " out");
      if (call.latency_ms !== undefined) facts.push(Math.round(call.latency_ms) + " ms");
      if (typeof call.structured === "string") facts.push("structured output: " + call.structured);
      if (call.cached === true) facts.push("replayed from the response cache");
      var thinking = typeof call.reasoning === "string"
        ? el("div", { class: "gn-msg gn-msg-thinking" }, el("span", { class: "gn-role", text: "thinking" }),
            el("pre", { text: call.reasoning }))
        : null;
      return el("div", { class: "gn-call" },
        el("p", { class: "gn-call-title", text: ["Call " + (i + 1)].concat(facts).join(" \u00b7 ") }),
        call.m.map(function (message) {
          return el("div", { class: "gn-msg gn-msg-" + message[0] }, el("span", { class: "gn-role", text: message[0] }),
            el("pre", { text: texts[message[1]] }));
        }),
        thinking,
        el("div", { class: "gn-msg gn-msg-reply" }, el("span", { class: "gn-role", text: "reply" }),
          el("pre", { text: call.r === null ? "(no reply)" : call.r })),
        call.error ? el("p", { class: "gn-error" }, "Error: ", call.error) : null);
    }

    function renderOutcome(panel) {
      var o = data.outcome;
      var forfeit = o.status === "invalid" ? o.result.forfeit : null;
      var withRoles = function (seats) {
        return seats.map(function (seat) {
          return name(seat) + (knowsRole(seat) ? " (" + words(players[seat].role, "-") + ")" : "");
        }).join(", ");
      };
      var said = forfeit
        ? ["The game ended in a forfeit: ", name(forfeit.seat), " forfeited (", forfeit.reason, "). "]
        : [o.summary.charAt(0).toUpperCase() + o.summary.slice(1) + ". "];
      fill(panel, el("p", { class: "gn-panel-title", text: "The outcome" }),
        el("p", { class: "gn-says" }, said, o.winners.length ? "Winners: " + withRoles(o.winners) + "." : "Nobody wins."),
        el("details", { class: "gn-result" },
          el("summary", { text: "Result as recomputed by the rules" }), value("result", o.result, 0)),
        data.judge.length ? judgeNotes(data.judge) : null);
    }

    /** The LLM judges' annotations: one list per judge, named once by its model and prompt version. */
    function judgeNotes(notes) {
      var judges = [];
      notes.forEach(function (j) {
        var key = JSON.stringify([j.judge, j.model, j.prompts || null]);
        var group = judges.filter(function (g) { return g.key === key; })[0];
        if (!group) judges.push(group = { key: key, first: j, notes: [] });
        group.notes.push(j);
      });
      return el("div", { class: "gn-judge" }, el("p", { class: "gn-panel-title", text: "LLM judge annotations" }),
        judges.map(function (g) {
          var j = g.first;
          return el("div", { class: "gn-judge-one" },
            el("p", {}, "Judge ", el("strong", { text: j.judge || "unnamed" }),
              j.model ? " (model " + j.model + ")" : "",
              j.prompts ? ", judge prompts " + j.prompts : ", judge prompts not recorded", ":"),
            el("ul", {}, g.notes.map(judgement)));
        }));
    }

    function judgement(j) {
      var what = words(j.dimension) + (j.round === null ? "" : " (round " + j.round + ")") + ": ";
      return el("li", {}, what, judgeValue(j));
    }

    var JUDGE_FAILED = { cut_off: "the judge's reply was cut off", refused: "the judge declined",
      unparseable: "no answer the game allows" };

    /** What one annotation says, in words: never an empty label. */
    function judgeValue(j) {
      if (j.failed) {
        return el("span", { class: "gn-absent", text: "not evaluated (" + (JUDGE_FAILED[j.failed] || j.failed) + ")" });
      }
      if (j.score !== null && j.score !== undefined) return "score " + j.score + " / 10";
      if (Array.isArray(j.suspects)) {
        return ["whom each player's statement points at as the Werewolf: ",
          j.suspects.map(function (s, seat) {
            return (seat ? "; " : "") + name(seat) + " \u2192 " + (s === null ? "nobody" : name(s));
          })];
      }
      if (Array.isArray(j.mentions)) {
        if (!j.mentions.length) return "no player's role named in the statements";
        return ["roles the statements name: ", j.mentions.map(function (m, i) {
          return (i ? "; " : "") + name(m.by) + " calls " + name(m.about) + " " + words(m.role);
        })];
      }
      if (Array.isArray(j.highlights)) {
        if (!j.highlights.length) return "no statement picked as memorable";
        return ["the most memorable statements: ", j.highlights.map(function (n, i) {
          var jump = el("button", { type: "button", class: "gn-link", text: "event " + n, on: { click: function () { goEvent(n); } } });
          return [i ? ", " : "", jump];
        })];
      }
      return el("span", { class: "gn-absent", text: "no value recorded" });
    }

    function renderState(b) { view.statePanel($(".gn-state"), b); }

    function renderSetup() { view.setupPanel($(".gn-setup")); }
    function renderHistory() {
      var list = $(".gn-history");
      var items = visible.filter(function (i) { return i > 0 && i <= step && i < last; }).map(function (i) {
        return el("li", { class: i === step ? "gn-current" : null },
          el("button", { type: "button", class: "gn-jump", on: { click: function () { go(i); } } },
            describe(data.steps[i - 1])));
      });
      fill(list, items.length ? items : el("li", { class: "gn-dim", text: "Nothing has happened yet." }));
      var current = list.querySelector(".gn-current");
      if (current) list.scrollTop = current.offsetTop - list.offsetTop - list.clientHeight / 2;
      else if (step >= last) list.scrollTop = list.scrollHeight;  // the outcome: the history's end, not its top
    }

    // -- moving -------------------------------------------------------------------------------
    function go(target) {
      step = snap(Math.max(0, Math.min(last, target)));
      render();
    }

    function goEvent(n) {
      for (var i = 0; i < data.steps.length; i++) if (data.steps[i].n === n) { go(i + 1); return; }
    }

    function move(where) {
      var position = visible.indexOf(step);
      var target = { first: 0, prev: position - 1, next: position + 1, last: visible.length - 1 }[where];
      step = visible[Math.max(0, Math.min(visible.length - 1, target))];
      render();
    }

    function onKey(event) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      var target = event.target;
      if (target && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName))) return;
      if (event.key === "ArrowRight") move("next");
      else if (event.key === "ArrowLeft") move("prev");
      else return;
      event.preventDefault();
    }

    function onSlider() {
      step = visible[Number(slider.value)] || 0;
      render();
    }

    function onPov() {
      pov = parsePov(povSelect.value);
      visible = visibleSteps();
      step = snap(step);
      render();
    }

    function onButton(event) { move(event.currentTarget.dataset.go); }

    /** Past statements in full, or each cut to two lines (the default: the history stays short). */
    function onFull() { $(".gn-history").classList.toggle("gn-history-full", fullBox.checked); }

    function onProbes() {
      showProbes = probesBox.checked;
      visible = visibleSteps();
      step = snap(step);
      render();
    }

    fill(povSelect, el("option", { value: "all", text: "Everything (omniscient)" }),
      players.map(function (p, seat) { return el("option", { value: String(seat), text: p.name + "'s view" }); }));
    povSelect.value = pov === null ? "all" : String(pov);
    povSelect.addEventListener("change", onPov);
    probesBox.checked = showProbes;
    probesBox.addEventListener("change", onProbes);
    fullBox.addEventListener("change", onFull);
    onFull();
    slider.addEventListener("input", onSlider);
    var buttons = root.querySelectorAll("[data-go]");
    buttons.forEach(function (button) { button.addEventListener("click", onButton); });
    document.addEventListener("keydown", onKey);
    $(".gn-message").hidden = true;
    $(".gn-body").hidden = false;
    render();
    root.dataset.ready = "true";

    return {
      destroy: function () {
        document.removeEventListener("keydown", onKey);
        povSelect.removeEventListener("change", onPov);
        probesBox.removeEventListener("change", onProbes);
        fullBox.removeEventListener("change", onFull);
        slider.removeEventListener("input", onSlider);
        buttons.forEach(function (button) { button.removeEventListener("click", onButton); });
      }
    };
  }
});
