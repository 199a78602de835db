/* gamenight point-of-view rendering: a game as one seat may know it (or with everything shown), in
 * words, tables and lists. Shared by the replay viewer (viewer.js) and the play page (play.js), so a
 * person playing sees their seat exactly as the viewer shows it afterwards.
 *
 * R.pointOfView(data, at) takes the game's data in the viewer's shape (players, game, variant,
 * public, private, knows, reveal, setup: see site_builder/viewer/data.py; the play page gets only what
 * its seat may know) and `at`, whose pov() is the seat shown (null: everything) and step() the
 * step shown. Replay text only ever reaches the page as text nodes (R.el).
 */
(function (install) {
  // Material inserts a page's scripts all at once on instant navigation, so this file may run
  // before common.js: it then waits in a queue that common.js empties.
  if (window.gamenightReplays) install(window.gamenightReplays);
  else (window.gamenightReplaysWaiting = window.gamenightReplaysWaiting || []).push(install);
})(function (R) {
  "use strict";
  if (R.pointOfView) return;
  var el = R.el, fill = R.fill, words = R.words;

  // Fields whose numbers are seats, shown as the seats' names.
  var SEAT_FIELDS = ["order", "chameleon", "undercover", "fellow_mason", "accused", "voted_out", "agreed_proposer",
    "agreed_proposers", "strict_winner", "winners", "top", "look", "looked", "votes", "vote", "proposal", "seat", "of", "outcome", "options"];
  var MAX_DEPTH = 6;

  R.pointOfView = function (data, at) {
    var players = data.players;

    function revealed(what) { return data.reveal[what] !== null && at.step() >= data.reveal[what]; }
    function knowsRole(seat) { return at.pov() === null || revealed("roles") || data.knows[at.pov()].indexOf(seat) >= 0; }
    function knowsAgent(seat) { return seat === at.pov() || knowsRole(seat); } // an agent can betray a role
    function privateTo(seat) { return at.pov() === null || at.pov() === seat; }
    function knowsPrivate(seat) { return at.pov() === null || at.pov() === seat || revealed("setup"); }

    // -- words --------------------------------------------------------------------------------
    function name(seat) {
      return typeof seat === "number" && players[seat] ? players[seat].name : "nobody";
    }
    function names(list) { return (list || []).map(name).join(", ") || "nobody"; }
    function quote(text) { return el("q", {}, String(text)); }
    function votes(list) {
      return list.map(function (target, seat) { return name(seat) + " \u2192 " + name(target); }).join("; ");
    }
    function clue(value) {
      if (value === null) return "nothing (a null response)";
      if (Array.isArray(value)) return value.length ? "{" + value.join(", ") + "}" : "{} (the empty set)";
      return String(value);
    }
    function split(shares) { return shares.map(function (share, seat) { return name(seat) + " " + share + "%"; }).join(", "); }
    function winnersText(seats) { return seats.length ? "Winners: " + names(seats) + "." : "Nobody wins."; }

    // -- the current step in words -----------------------------------------------------------------
    var DESCRIBE = {
      chameleon: {
        clue: function (d, s) { return [name(s.s), " gives the clue ", quote(clue(d.clue))]; },
        vote: function (d, s) { return [name(s.s), " votes for ", name(d.vote)]; },
        vote_result: function (d) {
          return ["The votes are revealed: ", votes(d.votes), ". Most voted: ", names(d.top), d.tie ? " (a tie)." : "."];
        },
        tie_break: tieBreak,
        tie_picker: function (d) { return ["A random draw chooses ", name(d.outcome), " to pick the accused among the tied."]; },
        tie_pick: function (d, s) { return [name(s.s), " picks ", name(d.accuse), " as the one accused."]; },
        accusation: function (d) {
          return d.accused === null
            ? ["Even vote: nobody is accused. The chameleon was ", name(d.chameleon), "."]
            : [name(d.accused), " is accused and ", d.identified ? "is" : "is not", " the chameleon. ",
              "The chameleon is ", name(d.chameleon), "."];
        },
        guess: function (d, s) { return [name(s.s), " guesses the secret word: ", quote(d.guess)]; },
        end: function (d) {
          var guess = d.guess === null ? "" : d.guess_correct ? "; the guess was right" : "; the guess was wrong";
          return ["The secret word was ", quote(d.secret), guess, ". ", winnersText(d.winners)];
        }
      },
      undercover: {
        clue: function (d, s) { return [name(s.s), " gives the clue ", quote(clue(d.clue))]; },
        vote: function (d, s) { return [name(s.s), " votes for ", name(d.vote)]; },
        vote_result: function (d) {
          return ["The votes are revealed: ", votes(d.votes), ". ",
            d.accused === null ? "Even vote: nobody is accused. " : name(d.accused) + " is accused. ",
            "The undercover was ", name(d.undercover), "; the civilians' word was ", quote(d.words.civilian),
            " and the undercover's ", quote(d.words.undercover), "."];
        }
      },
      werewolf: {
        night: function (d, s) {
          return s.k === "action"
            ? [name(s.s), " looks at ", names(d.look), " at night."]
            : [name(s.s), " learns that the Werewolf ", d.werewolf_among ? "is" : "is not", " among ", names(d.looked), "."];
        },
        day: function (d, s) { return [name(s.s), " says: ", quote(d.text)]; },
        vote: function (d, s) { return [name(s.s), " votes for ", name(d.vote)]; },
        count: function (d) { return ["The votes are revealed: ", votes(d.votes), ". Most voted: ", names(d.top), "."]; },
        tie_break: tieBreak,
        result: function (d) {
          return [name(d.voted_out), " is voted out: the ", words(d.role), ". The ", words(d.winning_team), " team wins. ",
            "Roles: ", d.roles.map(function (role, seat) { return name(seat) + " " + words(role); }).join(", "), "."];
        }
      },
      cost_sharing: {
        propose: function (d, s) { return [name(s.s), " proposes: ", split(d.split)]; },
        proposals: function (d) {
          return ["Round " + d.round + " proposals are revealed: ",
            d.proposals.map(function (p, seat) { return name(seat) + " (" + p.join(" / ") + ")"; }).join("; "), "."];
        },
        vote: function (d, s) { return [name(s.s), " votes for the proposal of ", name(d.proposal)]; },
        vote_result: function (d) {
          return ["Round " + d.round + " votes: ", votes(d.votes), ". ",
            !d.costs ? "No agreement." : [
              // agreement = "same_split": equal proposals of several airlines may be agreed.
              d.agreed_proposer === null
                ? "Agreed on the equal proposals of " + d.agreed_proposers.map(name).join(" and ")
                : ["Agreed on the proposal of ", name(d.agreed_proposer)],
              ": ", d.costs.map(function (c, seat) { return name(seat) + " pays " + c; }).join(", "), "."]];
        }
      },
      prisoners_dilemma: {
        choose: function (d, s) { return [name(s.s), " chooses to ", d.choice]; },
        round_result: function (d) {
          return ["Round " + d.round + ": ", d.choices.map(function (c, seat) {
            return name(seat) + " " + c + "s (+" + d.points[seat] + ")"; }).join(", "),
          ". Totals: ", d.totals.map(function (t, seat) { return name(seat) + " " + t; }).join(", "), "."];
        }
      },
      public_good: {
        contribute: function (d, s) { return [name(s.s), " contributes ", String(d.contribution)]; },
        round_result: function (d) {
          return ["Round " + d.round + " contributions: ", d.contributions.map(function (c, seat) {
            return name(seat) + " " + c; }).join(", "), ". The pool holds " + d.pool + "."];
        },
        payout: function (d) {
          return ["The pool of " + d.pool + " is multiplied by " + d.multiplier + " and shared: " + d.share + " each. Final: ",
            d.finals.map(function (f, seat) { return name(seat) + " " + f; }).join(", "), "."];
        }
      }
    };

    function own(table, key) { return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined; }

    function tieBreak(d) { return ["The tie between ", names(d.options), " is broken at random: ", name(d.outcome), "."]; }

    var PROBES = {
      suspect: function (d, s) { return [name(s.s), " (asked privately) suspects ", name(d.seat), "."]; },
      suspect_of: function (d, s) {
        return [name(s.s), " (asked privately) thinks ", name(d.of), " suspects ", name(d.seat), "."];
      },
      self_role: function (d, s) { return [name(s.s), " (asked privately) believes their role is ", words(d.role), "."]; },
      secret: function (d, s) { return [name(s.s), " (asked privately) thinks the secret word is ", quote(d.word), "."]; },
      suspected: function (d, s) { return [name(s.s), " (asked privately) thinks the others suspect ", name(d.seat), " most."]; }
    };

    function describe(s) {
      var handler = s.k === "probe" ? own(PROBES, s.p) : own(own(DESCRIBE, data.game) || {}, s.p);
      if (s.k === "forfeit") return [name(s.s), " never made a legal move and forfeits: ", quote(s.d.reason)];
      if (s.k === "probe" && s.d && typeof s.d.unanswered === "string") {
        return [name(s.s), " (asked privately) gave no usable answer: ", quote(s.d.unanswered)];
      }
      if (handler) {
        try { return handler(s.d, s); } catch (error) { /* a shape this viewer does not know: shown as data */ }
      }
      return [s.s === null ? "" : name(s.s) + ": ", words(s.p) + " ", JSON.stringify(s.d)];
    }

    // -- values (setup, results) as nested lists ----------------------------------------------
    function value(key, v, depth) {
      if (v === null || v === undefined) return "\u2014";
      if (typeof v === "boolean") return v ? "yes" : "no";
      if (typeof v === "number") return SEAT_FIELDS.indexOf(key) >= 0 && Number.isInteger(v) ? name(v) : String(v);
      if (typeof v === "string") return v;
      if (depth >= MAX_DEPTH) return JSON.stringify(v);
      if (Array.isArray(v)) {
        if (v.every(function (x) { return x === null || typeof x !== "object"; })) {
          return v.map(function (x) { return value(key, x, depth + 1); }).join(", ") || "(none)";
        }
        return el("ol", { class: "gn-values" }, v.map(function (x) { return el("li", {}, value(key, x, depth + 1)); }));
      }
      var keys = Object.keys(v);
      if (depth > 0 && keys.every(function (k) { return v[k] === null || typeof v[k] !== "object"; })) {
        return keys.map(function (k) { return words(k) + ": " + value(k, v[k], depth + 1); }).join(" \u00b7 ");
      }
      return el("dl", { class: "gn-values" }, keys.map(function (k) {
        return [el("dt", { text: words(k) }), el("dd", {}, value(k, v[k], depth + 1))];
      }));
    }


    function board(columns) {
      var empty = function () { return columns.map(function () { return ""; }); };
      return { columns: columns, rows: players.map(empty), notes: [] };
    }

    var BOARDS = {
      chameleon: function (seen) {
        var b = board(["Clue", "Vote", "Votes received"]);
        seen.forEach(function (s) {
          if (s.p === "clue" && s.k === "action") b.rows[s.s][0] = clue(s.d.clue);
          else if (s.p === "vote" && s.k === "action") b.rows[s.s][1] = name(s.d.vote);
          else if (s.p === "vote_result") tally(b, s.d.votes, s.d.tally, 1, 2);
          else if (s.p === "accusation") {
            b.notes.push(s.d.accused === null ? "Even vote: nobody accused." : "Accused: " + name(s.d.accused) + ".");
          }
          else if (s.p === "guess") b.notes.push("The chameleon's guess: " + s.d.guess + ".");
        });
        var clues = seen.filter(function (s) { return s.p === "clue" && s.k === "action"; }).length;
        b.notes.unshift("Clues given: " + clues + " of " + players.length + ".");
        if (at.pov() !== null && !("secret" in data.private[at.pov()]) && !revealed("setup")) {
          b.notes.push(name(at.pov()) + " does not know the secret word.");
        }
        return b;
      },
      undercover: function (seen) {
        var b = board(["Word", "Clues", "Vote", "Votes received"]);
        players.forEach(function (p, seat) { b.rows[seat][0] = knowsPrivate(seat) ? String(data.private[seat].word) : "?"; });
        seen.forEach(function (s) {
          if (s.p === "clue" && s.k === "action") b.rows[s.s][1] += (b.rows[s.s][1] ? " \u00b7 " : "") + clue(s.d.clue);
          else if (s.p === "vote" && s.k === "action") b.rows[s.s][2] = name(s.d.vote);
          else if (s.p === "vote_result") tally(b, s.d.votes, s.d.tally, 2, 3);
        });
        var clues = seen.filter(function (s) { return s.p === "clue" && s.k === "action"; }).length;
        b.notes.push("Clues given: " + clues + " of " + players.length * data.variant.rounds + " (" +
          data.variant.rounds + " rounds).");
        if (at.pov() !== null && !revealed("roles")) b.notes.push("Nobody is told their role, " + name(at.pov()) + " included.");
        return b;
      },
      werewolf: function (seen) {
        var b = board(["Statements", "Vote", "Votes received"]);
        players.forEach(function (p, seat) { b.rows[seat][0] = "0"; });
        seen.forEach(function (s) {
          if (s.p === "day") b.rows[s.s][0] = String(Number(b.rows[s.s][0]) + 1);
          else if (s.p === "night" && s.k === "info") {
            b.notes.push(name(s.s) + " (Seer) knows the Werewolf " + (s.d.werewolf_among ? "is" : "is not") +
              " among " + names(s.d.looked) + ".");
          } else if (s.p === "vote" && s.k === "action") b.rows[s.s][1] = name(s.d.vote);
          else if (s.p === "count") tally(b, s.d.votes, s.d.tally, 1, 2);
          else if (s.p === "result") b.notes.push("Voted out: " + name(s.d.voted_out) + ", the " + words(s.d.role) + ".");
        });
        var said = seen.filter(function (s) { return s.p === "day"; }).length;
        b.notes.unshift("Statements: " + said + " of " + players.length * data.public.rounds + ".");
        return b;
      },
      cost_sharing: function (seen) {
        var b = board(["Proposal", "Vote", "Pays"]);
        var round = 1, agreed = null;
        seen.forEach(function (s) {
          if (s.p === "propose") b.rows[s.s][0] = s.d.split.join(" / ");
          else if (s.p === "proposals") s.d.proposals.forEach(function (p, seat) { b.rows[seat][0] = p.join(" / "); });
          else if (s.p === "vote" && s.k === "action") b.rows[s.s][1] = name(s.d.proposal);
          else if (s.p === "vote_result") {
            s.d.votes.forEach(function (t, seat) { b.rows[seat][1] = name(t); });
            if (s.d.costs) s.d.costs.forEach(function (c, seat) { b.rows[seat][2] = String(c); });
            round = s.d.round + 1;
            if (s.d.costs) agreed = s.d.round;
          }
        });
        var progress = agreed === null
          ? "Round " + Math.min(round, data.variant.rounds) + " of " + data.variant.rounds + "."
          : "Agreed in round " + agreed + ".";
        b.notes.push("Fee: " + data.setup.fee + ". " + progress);
        return b;
      },
      prisoners_dilemma: function (seen) {
        var b = board(["Choices", "Total"]);
        var choices = players.map(function () { return []; });
        var round = 0;
        seen.forEach(function (s) {
          if (s.p === "choose") choices[s.s][round] = s.d.choice;
          else if (s.p === "round_result") {
            s.d.choices.forEach(function (c, seat) { choices[seat][s.d.round - 1] = c; });
            s.d.totals.forEach(function (t, seat) { b.rows[seat][1] = String(t); });
            round = s.d.round;
          }
        });
        choices.forEach(function (list, seat) { b.rows[seat][0] = list.filter(Boolean).join(" \u00b7 "); });
        b.notes.push("Rounds played: " + round + " of " + data.variant.rounds + ".");
        return b;
      },
      public_good: function (seen) {
        var b = board(["Contributions", "Final"]);
        var given = players.map(function () { return []; });
        var round = 0, pool = 0;
        seen.forEach(function (s) {
          if (s.p === "contribute") given[s.s][round] = s.d.contribution;
          else if (s.p === "round_result") {
            s.d.contributions.forEach(function (c, seat) { given[seat][s.d.round - 1] = c; });
            round = s.d.round;
            pool = s.d.pool;
          } else if (s.p === "payout") s.d.finals.forEach(function (f, seat) { b.rows[seat][1] = String(f); });
        });
        b.notes.push("Rounds played: " + round + " of " + data.variant.rounds + ". Pool: " + pool + ".");
        given.forEach(function (list, seat) {
          b.rows[seat][0] = list.filter(function (x) { return x !== undefined; }).join(" \u00b7 ");
        });
        return b;
      }
    };

    function tally(b, voteList, counts, voteColumn, countColumn) {
      voteList.forEach(function (target, seat) { b.rows[seat][voteColumn] = name(target); });
      counts.forEach(function (n, seat) { b.rows[seat][countColumn] = String(n); });
    }


    function currentBoard(seen) {
      var make = own(BOARDS, data.game);
      if (make) {
        try { return make(seen); } catch (error) { /* unknown shapes: fall back to no columns */ }
      }
      return board([]);
    }

    // -- panels -------------------------------------------------------------------------------
    /** What an agent is, beyond its label: its model and design, or its strategy's settings (the
        label's words are not said twice). */
    function aboutAgent(p) {
      var about = typeof p.about === "string" ? p.about : "";
      if (about.indexOf(p.agent) === 0) about = about.slice(p.agent.length).trim();
      return about ? el("span", { class: "gn-about", text: about }) : null;
    }

    /** The players: a table, and on a phone a compact list of the same (viewer.css shows one), one
        line or two per player with only what this view knows; "?" is said once below, not per cell. */
    function playersTable(panel, b, atEnd) {
      var unknown = false;
      var head = el("tr", {}, el("th", { scope: "col", text: "Player" }), el("th", { scope: "col", text: "Role" }),
        el("th", { scope: "col", text: "Agent" }), b.columns.map(function (c) { return el("th", { scope: "col", text: c }); }),
        atEnd ? el("th", { scope: "col", text: "Result" }) : null);
      var rows = players.map(function (p, seat) {
        var you = seat === at.pov();
        unknown = unknown || !knowsRole(seat) || !knowsAgent(seat);
        return el("tr", { class: you ? "gn-you" : null },
          el("th", { scope: "row" }, p.name, you ? el("span", { class: "gn-badge", text: "you" }) : null),
          knowsRole(seat) ? el("td", { text: words(p.role, "-") }) : el("td", { class: "gn-hidden", text: "?" }),
          knowsAgent(seat) ? el("td", {}, p.agent, aboutAgent(p)) : el("td", { class: "gn-hidden", text: "?" }),
          b.rows[seat].map(function (cell) { return el("td", { text: cell }); }),
          atEnd ? el("td", { text: won(seat) ? "won" : "\u2014" }) : null);
      });
      var list = el("ul", { class: "gn-player-list", "aria-label": "Players" }, players.map(function (p, seat) {
        var you = seat === at.pov();
        var who = [knowsRole(seat) ? words(p.role, "-") : null, knowsAgent(seat) ? p.agent : null].filter(Boolean);
        var missing = !knowsRole(seat) && !knowsAgent(seat) ? "role and agent not known"
          : !knowsRole(seat) ? "role not known" : !knowsAgent(seat) ? "agent not known" : null;
        var facts = b.columns.map(function (c, k) { return b.rows[seat][k] ? c + " " + b.rows[seat][k] : null; })
          .filter(Boolean);
        if (atEnd) facts.push(won(seat) ? "won" : "did not win");
        return el("li", { class: you ? "gn-you" : null },
          el("strong", { text: p.name }), you ? el("span", { class: "gn-badge", text: "you" }) : null,
          who.length ? [" \u00b7 ", who.join(" \u00b7 ")] : null,
          knowsAgent(seat) ? [" ", aboutAgent(p)] : null,
          missing ? [" \u00b7 ", el("span", { class: "gn-hidden", text: missing })] : null,
          facts.length ? el("span", { class: "gn-player-facts", text: facts.join(" \u00b7 ") }) : null);
      }));
      var note = unknown && at.pov() !== null
        ? el("p", { class: "gn-dim gn-unknown-note", text: "?: not known to " + name(at.pov()) + " at this step." }) : null;
      fill(panel, el("table", { class: "gn-table" }, el("thead", {}, head), el("tbody", {}, rows)), list, note);
    }

    function won(seat) { return data.outcome.winners.indexOf(seat) >= 0; }


    function statePanel(panel, b) {
      fill(panel, el("p", { class: "gn-panel-title", text: "The game so far" }),
        b.notes.length ? el("ul", {}, b.notes.map(function (n) { return el("li", { text: n }); }))
          : el("p", { class: "gn-dim", text: b.columns.length ? "See the players' table." : "Nothing to show yet." }));
    }


    function setupPanel(panel) {
      if (at.pov() === null || revealed("setup")) {
        fill(panel, el("p", { class: "gn-panel-title", text: at.pov() === null ? "Setup (everything)" : "Setup (revealed)" }),
          value("setup", data.setup, 0));
        return;
      }
      var own = data.private[at.pov()];
      fill(panel, el("p", { class: "gn-panel-title", text: "What " + name(at.pov()) + " knows" }),
        el("p", { class: "gn-dim", text: "Dealt to " + name(at.pov()) + ":" }),
        Object.keys(own).length ? value("private", own, 0) : el("p", { text: "nothing private" }),
        el("p", { class: "gn-dim", text: "Known to everyone:" }), value("public", data.public, 0));
    }


    return {
      name: name, names: names, quote: quote, clue: clue, describe: describe, value: value, board: currentBoard,
      revealed: revealed, knowsRole: knowsRole, knowsAgent: knowsAgent, privateTo: privateTo,
      knowsPrivate: knowsPrivate, playersTable: playersTable, statePanel: statePanel, setupPanel: setupPanel
    };
  };
});
