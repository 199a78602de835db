/* gamenight play page: one person's seat of a game being played (site_builder/play/server.py).
 *
 * The page's address is the seat's secret link, /seat/<token>; it polls <link>/view, which holds
 * only what that seat may know, and posts each answer to <link>/answer. The seat is drawn with the
 * replay viewer's point-of-view rendering (pov.js); the question is a form built from the rules'
 * legal moves. Every string from the game reaches the page as text (R.el), never as markup.
 */
(function (install) {
  if (window.gamenightReplays) install(window.gamenightReplays);
  else (window.gamenightReplaysWaiting = window.gamenightReplaysWaiting || []).push(install);
})(function (R) {
  "use strict";
  var el = R.el, fill = R.fill, words = R.words;
  var VIEW_VERSION = 1;
  var SUSPECTED_ROLE = { chameleon: "the chameleon", undercover: "the undercover", werewolf: "the Werewolf" };
  // What a choice between the rules' options asks, by the move's field.
  var CHOOSE = { vote: "Vote for:", accuse: "Accuse one of the tied players:", proposal: "Vote for a proposal:",
    choice: "Choose:", guess: "Guess the secret word:" };
  // Moves that decide the game at one tap: chosen first, then confirmed (a second, deliberate press).
  var CONFIRM = { vote: "Vote for", accuse: "Accuse", proposal: "Vote for", guess: "Guess" };

  R.onEachPage("[data-gn-play]", start);

  function start(root) {
    var base = window.location.pathname.replace(/\/+$/, "");
    var $ = function (selector) { return root.querySelector(selector); };
    var data = null, version = null, stopped = false, shown = null, historyLength = -1;

    function poll() {
      if (stopped) return;
      var url = base + "/view" + (version === null ? "" : "?since=" + version);
      fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
        if (response.status === 404) throw new Error("this link is not a seat of a game being played here");
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      }).then(function (view) {
        if (!view || view.v !== VIEW_VERSION) throw new Error("an answer of an unknown version");
        data = view;
        version = view.version;
        render();
        if (!view.outcome && !view.failure) poll();
      }).catch(function (error) {
        if (stopped) return;
        var message = $(".gn-message");
        message.hidden = false;
        fill(message, "The game cannot be reached (" + error.message + "); trying again\u2026");
        window.setTimeout(poll, 2000);
      });
    }

    function render() {
      var view = R.pointOfView(data, { pov: function () { return data.seat; }, step: function () { return data.steps.length; } });
      var me = data.players[data.seat];
      $(".gn-message").hidden = true;
      $(".gn-body").hidden = false;
      fill($(".gn-game"), "\u00b7 " + data.title);
      fill($(".gn-you-are"), "You play ", el("strong", { text: me.name }), " as ", me.agent,
        me.role ? [" \u2014 your role: ", el("strong", { text: words(me.role, "-") })] : " \u2014 you are not told your role");
      renderRules();
      var b = view.board(data.steps);
      view.playersTable($(".gn-players"), b, Boolean(data.outcome));
      fitPlayers();
      view.statePanel($(".gn-state"), b);
      view.setupPanel($(".gn-setup"));
      renderHistory(view);
      renderAsk(view);
      root.dataset.version = String(data.version);
      root.dataset.state = data.outcome ? "over" : data.failure ? "failed" : data.question ? "asked" : "waiting";
      root.dataset.question = data.question ? String(data.question.id) : "";
    }

    // The goal and the rules, drawn once: the rules are what a model in this seat is told.
    function renderRules() {
      var panel = $(".gn-rules");
      if (panel.dataset.drawn || !data.rules) return;
      panel.dataset.drawn = "1";
      fill(panel, el("h2", { class: "gn-panel-title", text: "Your goal" }), el("p", { class: "gn-goal", text: data.goal }),
        el("details", { class: "gn-rules-text" },
          el("summary", { text: "The rules, as every model at this table is told them" }),
          el("div", { class: "gn-rules-body", text: data.rules })),
        data.rules_page ? el("p", {}, rulesLink(), " (how gamenight plays it, in full; opens in a new tab)") : null);
    }

    /** The link to this seat's rules page (the server's own address, so set as a property). */
    function rulesLink() {
      var link = el("a", { text: "The rules page of " + data.title });
      link.href = base + "/rules";
      link.target = "_blank";
      link.rel = "noopener";
      return link;
    }

    // The players' table fits the screen as on the site's pages (fit.js): tighter, then stacked.
    function fitPlayers() {
      var table = $(".gn-players table");
      if (table && window.gamenightFit) window.gamenightFit.fit(table);
    }
    window.addEventListener("resize", fitPlayers);

    function renderHistory(view) {
      var list = $(".gn-history");
      if (data.steps.length === historyLength) return;
      historyLength = data.steps.length;
      fill(list, data.steps.length ? data.steps.map(function (s) { return el("li", {}, view.describe(s)); })
        : el("li", { class: "gn-dim", text: "Nothing has happened yet." }));
      list.scrollTop = list.scrollHeight;
    }

    // -- the question ---------------------------------------------------------------------------
    function renderAsk(view) {
      var panel = $(".gn-ask");
      var q = data.question;
      var key = data.failure ? "failure" : data.outcome ? "outcome" : q ? "q" + q.id : "wait:" + data.waiting.join(",");
      if (key === shown) return; // the same question: keep what the person has typed
      shown = key;
      if (data.failure) {
        fill(panel, el("h2", { text: "The game stopped" }), el("p", { class: "gn-refused", text: data.failure }),
          el("p", { text: "Nothing was written." }));
      } else if (data.outcome) {
        var winners = data.outcome.winners;
        var won = winners.indexOf(data.seat) >= 0;
        fill(panel, el("h2", { text: data.outcome.status === "complete" ? (won ? "You won" : "The game is over") : "The game ended in a forfeit" }),
          el("p", {}, winners.length ? "Winners: " + view.names(winners) + "." : "Nobody wins."),
          data.replay ? el("p", { class: "gn-dim" }, "The replay is written to ", el("code", { text: data.replay }), ".") : null,
          el("p", { class: "gn-dim", text: "This page keeps working, a reload too, until gamenight play is stopped (Ctrl-C in its terminal)." }));
        stopped = true;
      } else if (q) {
        fill(panel, q.kind === "move" ? moveForm(view, q) : probeForm(view, q));
        var first = panel.querySelector("input, textarea, button");
        if (first) first.focus({ preventScroll: false });
      } else {
        // The server names a player only on a turn the rules make public (a clue, a day
        // statement); whoever acts unseen (the Seer at night) or still decides a vote is not named.
        var others = data.waiting.map(view.name);
        fill(panel, el("h2", { text: "Waiting" }),
          el("p", { class: "gn-dim", text: others.length ? "Waiting for " + others.join(", ") + "\u2026"
            : "Waiting for the others\u2026" }));
      }
    }

    function heading(text, q) {
      return [el("h2", { text: text }),
        q.refused.length ? el("p", { class: "gn-refused", role: "alert" }, "Not accepted: ", q.refused[q.refused.length - 1]) : null];
    }

    function send(q, answer, form) {
      if (form) form.querySelectorAll("button, input, textarea").forEach(function (c) { c.disabled = true; });
      fetch(base + "/answer", {
        method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ id: q.id, answer: answer })
      }).then(function (response) {
        if (!response.ok && response.status !== 409) throw new Error("HTTP " + response.status);
      }).catch(function (error) {
        if (form) form.querySelectorAll("button, input, textarea").forEach(function (c) { c.disabled = false; });
        fill($(".gn-message"), "The answer could not be sent (" + error.message + ").");
        $(".gn-message").hidden = false;
      });
    }

    /** A number box (el() sets no min/max/step attributes, so they are set as properties). */
    function numberInput(min, max, step, value) {
      var input = el("input", { type: "number", value: value });
      input.min = String(min);
      input.max = String(max);
      input.step = step;
      return input;
    }

    function one(field, value) { var answer = {}; answer[field] = value; return answer; }

    function optionLabel(view, legal, option) {
      if (legal.field === "proposal" && Array.isArray(legal.proposals) && legal.proposals[option]) {
        return view.name(option) + "'s proposal (" + legal.proposals[option].join(" / ") + ")";
      }
      return legal.seats ? view.name(option) : String(option);
    }

    function roundText(legal) {
      return legal.round ? " \u00b7 round " + legal.round + (legal.rounds ? " of " + legal.rounds : "") : "";
    }

    function moveForm(view, q) {
      var legal = q.legal, field = legal.field;
      var form = el("form", { class: "gn-move" });
      var title = "Your move: " + words(q.phase) + roundText(legal);
      form.addEventListener("submit", function (event) { event.preventDefault(); });
      if (Array.isArray(legal.options) && field === "look") {
        var boxes = legal.options.map(function (o) {
          return el("label", { class: "gn-check" }, el("input", { type: "checkbox", value: String(o) }), view.name(o));
        });
        var look = el("button", { type: "submit", class: "gn-primary", text: "Look at these two" });
        form.addEventListener("submit", function () {
          var picked = [].slice.call(form.querySelectorAll("input:checked")).map(function (i) { return Number(i.value); });
          send(q, one(field, picked), form);
        });
        form.appendChild(el("fieldset", { class: "gn-choices" },
          el("legend", { text: "Choose " + (legal.count || 2) + " players to look at:" }), boxes));
        form.appendChild(el("div", { class: "gn-actions" }, look));
        return [heading(title, q), form];
      }
      if (Array.isArray(legal.options)) {
        var confirm = CONFIRM[field] ? el("div", { class: "gn-confirm-bar", hidden: "" }) : null;
        form.appendChild(el("fieldset", { class: "gn-choices" }, el("legend", { text: CHOOSE[field] || words(field) + ":" }),
          legal.options.map(function (o) {
            var label = optionLabel(view, legal, o);
            return el("button", { type: "button", "aria-pressed": confirm ? "false" : null, on: { click: function (event) {
              if (confirm) askToConfirm(confirm, event.currentTarget, CONFIRM[field] + " " + label + "?",
                function () { send(q, one(field, o), form); });
              else send(q, one(field, o), form);
            } } }, label);
          })));
        if (confirm) form.appendChild(confirm);
        return [heading(title, q), form];
      }
      if (field === "split") {
        var inputs = (legal.order || []).map(function (airline, i) {
          var start = i === 0 ? "33.34" : "33.33";
          return el("label", { class: "gn-field" }, view.name(i) + " pays (%)",
            numberInput(0, 100, "0.01", start));
        });
        form.appendChild(el("p", { class: "gn-dim", text: legal.rule }));
        form.appendChild(el("div", { class: "gn-split" }, inputs));
        form.appendChild(el("div", { class: "gn-actions" }, el("button", { type: "submit", class: "gn-primary", text: "Propose" })));
        form.addEventListener("submit", function () {
          var split = [].slice.call(form.querySelectorAll("input")).map(function (i) { return i.value === "" ? null : Number(i.value); });
          send(q, one(field, split), form);
        });
        return [heading(title, q), form];
      }
      if (field === "contribution") {
        var amount = numberInput(legal.min, legal.max, "1", String(legal.min));
        form.appendChild(el("label", { class: "gn-field" }, "Points to put in the pool (" + legal.min + " to " + legal.max + ")", amount));
        form.appendChild(el("div", { class: "gn-actions" }, el("button", { type: "submit", class: "gn-primary", text: "Contribute" })));
        form.addEventListener("submit", function () {
          send(q, one(field, amount.value === "" ? null : Number(amount.value)), form);
        });
        return [heading(title, q), form];
      }
      if (field === "clue" && legal.mode === "subset") {
        var card = legal.words.map(function (w) {
          return el("label", { class: "gn-check" }, el("input", { type: "checkbox", value: w }), w);
        });
        form.appendChild(el("fieldset", { class: "gn-choices" }, el("legend", { text: legal.format }), card));
        form.appendChild(el("div", { class: "gn-actions" }, el("button", { type: "submit", class: "gn-primary", text: "Give this clue" })));
        form.addEventListener("submit", function () {
          var picked = [].slice.call(form.querySelectorAll("input:checked")).map(function (i) { return i.value; });
          send(q, one(field, picked.length ? picked : null), form);
        });
        return [heading(title, q), form];
      }
      if (field === "clue" || field === "text") {
        var long = field === "text";
        var limit = long ? "At most " + legal.max_words + " words." : legal.format || legal.rule;
        var box = long ? el("textarea") : el("input", { type: "text" });
        if (long) box.rows = 4;
        else box.autocomplete = "off";
        if (long && legal.max_chars) box.maxLength = legal.max_chars;
        form.appendChild(el("label", { class: "gn-field" }, long ? "Your statement" : "Your clue", box));
        form.appendChild(el("p", { class: "gn-dim", text: limit }));
        form.appendChild(el("div", { class: "gn-actions" }, el("button", { type: "submit", class: "gn-primary", text: long ? "Say it" : "Give this clue" })));
        form.addEventListener("submit", function () { send(q, one(field, box.value), form); });
        return [heading(title, q), form];
      }
      form.appendChild(el("p", { text: "This page does not know how to ask this move: " + JSON.stringify(legal) }));
      return [heading(title, q), form];
    }

    /** A vote or guess is chosen first (the button stays pressed), then sent by a confirm button
     * that takes the focus; choosing again changes the choice. No window.confirm: a dialog would
     * take the page away from the keyboard and the screen reader's place. */
    function askToConfirm(bar, chosen, question, commit) {
      bar.parentNode.querySelectorAll(".gn-choices button").forEach(function (b) {
        b.setAttribute("aria-pressed", b === chosen ? "true" : "false");
      });
      var yes = el("button", { type: "button", class: "gn-primary gn-confirm", text: "Confirm",
        on: { click: function () { commit(); } } });
      fill(bar, el("p", { class: "gn-confirm-question", role: "status", text: question + " Nothing is sent until you confirm." }),
        el("div", { class: "gn-actions" }, yes, el("button", { type: "button", class: "gn-change", text: "Choose again",
          on: { click: function () {
            bar.hidden = true;
            chosen.setAttribute("aria-pressed", "false");
            chosen.focus();
          } } })));
      bar.hidden = false;
      yes.focus();
    }

    function probeForm(view, q) {
      var seats = data.players.map(function (_, s) { return s; });
      var others = seats.filter(function (s) { return s !== data.seat; });
      var role = SUSPECTED_ROLE[data.game] || "the odd one out";
      var ask, options, answer;
      if (q.probe === "suspect") {
        ask = "Whom do you suspect of being " + role + "?";
        options = others; answer = function (s) { return { seat: s }; };
      } else if (q.probe === "suspect_of") {
        ask = "Whom do you think " + view.name(q.about) + " suspects of being " + role + "?";
        options = seats.filter(function (s) { return s !== q.about; });
        answer = function (s) { return { of: q.about, seat: s }; };
      } else if (q.probe === "self_role") {
        ask = "What do you think your own role is?";
        options = q.roles; answer = function (r) { return { role: r }; };
      } else if (q.probe === "secret") {
        ask = "Which word of the card do you think is the secret word?";
        options = q.words || []; answer = function (w) { return { word: w }; };
      } else {
        ask = "Whom do you think the others suspect most?";
        options = seats; answer = function (s) { return { seat: s }; };
      }
      var label = function (o) { return typeof o === "number" ? view.name(o) : words(String(o), "-"); };
      var form = el("form", { class: "gn-probe" });
      form.addEventListener("submit", function (event) { event.preventDefault(); });
      form.appendChild(el("fieldset", { class: "gn-choices" }, el("legend", { text: ask }),
        options.map(function (o) {
          return el("button", { type: "button", on: { click: function () { send(q, answer(o), form); } } }, label(o));
        })));
      form.appendChild(el("div", { class: "gn-actions" },
        el("button", { type: "button", class: "gn-skip", text: "Skip this question", on: { click: function () { send(q, null, form); } } })));
      return [heading("A private question (optional)", q),
        el("p", { class: "gn-dim", text: "Asked of every player at this point, as of the models; nobody else sees your answer until the replay." }),
        form];
    }

    poll();
    return function stop() { stopped = true; };
  }
});
