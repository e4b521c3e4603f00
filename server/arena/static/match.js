// One match: live (WebSocket updates) or from the history, with a replay slider.
import { api, goalsText, h } from "./api.js";
import { drawBoard, drawWinningLine, factsView, markMoves, winningLine } from "./boards.js";

// What an error code of a step means, said for a person.
const ERROR_WORDS = {
  TO: "no move in time",
  CE: "could not be reached",
  IL: "an illegal move",
};

function errorText(role, code, reason) {
  const kind = code.split(" ")[0];
  const words = reason || ERROR_WORDS[kind];
  return `${role} ${kind}${words ? `: ${words}` : ""}`;
}

// The result said plainly: who won (or "you won / lost / drew" to the person playing),
// with every role's goal.
export function resultText(roles, goals, persons = []) {
  const scores = goalsText(roles, goals);
  const best = Math.max(...goals);
  const winners = roles.filter((role, i) => goals[i] === best);
  if (persons.length === 1 && roles.length > 1) {
    const mine = goals[persons[0]];
    const others = goals.filter((goal, i) => i !== persons[0]);
    const verdict = mine > Math.max(...others) ? "You won"
      : mine < Math.max(...others) ? "You lost" : "You drew";
    return `${verdict} (${roles[persons[0]]}): ${scores}`;
  }
  if (roles.length === 1) return `Finished: ${scores}`;
  if (winners.length === roles.length) return `A draw: ${scores}`;
  return `${winners.join(" and ")} won: ${scores}`;
}

function movesText(roles, moves) {
  const shown = moves.map((move, i) => (move === "noop" ? null : `${roles[i]} ${move}`)).filter(Boolean);
  return shown.length ? shown.join(", ") : "noop";
}

function rankingTable(ranking) {
  return h("table", { class: "ranking" },
    h("tr", {}, h("th", {}, "move"), h("th", {}, "visits"), h("th", {}, "value")),
    ranking.map((row) => h("tr", {}, h("td", {}, row.move), h("td", {}, row.visits),
                             h("td", {}, row.value.toFixed(3)))));
}

export async function matchPage(page, id) {
  const view = { match: null, viewing: null, thinking: {}, hint: null, socket: null, clock: null,
                 offset: 0, message: "" };
  const title = h("h2", {}, id);
  const banner = h("div", { class: "banner", hidden: true });
  const status = h("div", { class: "status" });
  const clock = h("div", { class: "clock" });
  const boardBox = h("div", { class: "board-box" });
  const slider = h("input", { type: "range", min: "0", max: "0", value: "0", name: "step",
                              "aria-label": "step" });
  const stepLabel = h("span", {});
  const moves = h("ol", { class: "moves", start: "1" });
  const side = h("div", {});
  const actions = h("div", {});
  page.append(title, h("div", { class: "match" },
    h("div", { class: "left" }, banner, status, boardBox, h("div", {}, slider, " ", stepLabel), clock),
    h("div", { class: "right" }, actions, side, h("h3", {}, "Moves"), moves)));

  slider.addEventListener("input", () => {
    const last = view.match.steps.length - 1;
    view.viewing = Number(slider.value) === last ? null : Number(slider.value);
    render();
  });

  async function move(role, text) {
    view.hint = null;
    try {
      await api(`matches/${encodeURIComponent(id)}/move`, { role, move: text });
      view.message = "";
    } catch (error) {
      view.message = error.message;
    }
    render();
  }

  async function askHint(role) {
    view.hint = { role, ranking: null };
    render();
    try {
      view.hint = await api(`matches/${encodeURIComponent(id)}/hint`, { role });
    } catch (error) {
      view.hint = null;
      view.message = error.message;
    }
    render();
  }

  function render() {
    const match = view.match;
    if (!match) return;
    const { roles, steps } = match;
    title.textContent = `${match.game}: ${roles.map((r, i) => `${r} (${match.players[i]})`).join(" vs ")}`;
    const last = steps.length - 1;
    const index = view.viewing ?? last;
    const step = steps[index];
    slider.max = String(Math.max(last, 0));
    slider.value = String(index);
    stepLabel.textContent = last >= 0 ? `step ${index} of ${last}` : "";
    const waiting = index === last && match.status === "running" ? match.waiting : [];
    // Status line: the result, or whose turn it is.
    if (match.status === "finished" && match.goals) {
      status.replaceChildren(`Finished: ${goalsText(roles, match.goals)}`);
    } else if (match.status === "aborted") {
      status.replaceChildren(h("span", { class: "error" }, `Aborted: ${match.failure || ""}`));
    } else if (waiting.length) {
      status.replaceChildren(h("span", { class: "turn" },
        `Your turn: ${waiting.map((r) => roles[r]).join(", ")}`));
    } else if (step && step.legal) {
      const moving = roles.filter((r, i) => (step.legal[i] || []).length > 1);
      status.replaceChildren(`Thinking: ${(moving.length ? moving : roles).join(", ")}`);
    } else status.replaceChildren(match.status);
    if (view.message) status.append(h("div", { class: "error" }, view.message));
    const finished = match.status === "finished" && match.goals;
    banner.hidden = !finished;
    banner.textContent = finished ? resultText(roles, match.goals, match.persons || []) : "";
    // The board, clickable for the person on move.
    boardBox.replaceChildren();
    if (step) {
      const legal = new Set(waiting.flatMap((r) => step.legal[r]));
      const play = waiting.length ? {
        legal,
        onMove: (text) => move(waiting.find((r) => step.legal[r].includes(text)), text),
      } : null;
      const board = match.view ? null : drawBoard(match.board, step.facts, play);
      if (match.view) {  // a GDL-II match a person plays: their view only, until it is over
        boardBox.append(h("p", { class: "view" },
          `You see what ${roles[match.view.role]} sees: its own moves and what it perceives. `
          + "The state is shown once the match is over."),
          h("strong", {}, step.facts.length ? "Seen after this step:" : "Nothing seen at this step."));
      }
      boardBox.append(board || factsView(step.facts));
      const marks = [];
      if (board && index === last) {
        if (view.hint && view.hint.ranking && view.hint.ranking.length) {
          markMoves(board, [view.hint.ranking[0].move], "hint");
          marks.push(h("span", { class: "key hint" }, `the hint's move ${view.hint.ranking[0].move}`));
        }
        for (const [role, ranking] of Object.entries(view.thinking)) {
          if (ranking.length && !waiting.length) {  // an agent's choice while it is to move
            markMoves(board, [ranking[0].move], "best");
            marks.push(h("span", { class: "key best" },
                         `${roles[role]} (${match.players[role]}) ranks first ${ranking[0].move}`));
          }
        }
        const line = finished && winningLine(match.board, step.facts);
        if (line) drawWinningLine(board, line);
      }
      if (marks.length) boardBox.append(h("div", { class: "keys" }, marks));
      if (!board || match.board?.kind === "breakthrough") {
        for (const role of waiting) {
          boardBox.append(h("div", { class: "legal-moves" }, h("strong", {}, `${roles[role]}: `),
            step.legal[role].map((text) => h("button", { onclick: () => move(role, text) }, text))));
        }
      }
      if (!board && !match.view && step.legal && step.legal.length) {  // any other game: what each role may play now
        boardBox.append(h("div", { class: "legal-lists" }, roles.map((role, i) => (
          waiting.includes(i) ? null : h("div", { class: "legal-list" },
            h("strong", {}, `${role} may play: `), (step.legal[i] || []).join(", "))))));
      }
    }
    // Actions, hints, what the agents think.
    actions.replaceChildren(...[
      match.view ? null
        : h("a", { href: `/api/matches/${encodeURIComponent(id)}/log`, download: "" }, "Download the log"),
      " ",
      match.status === "running"
        ? h("button", { onclick: () => api(`matches/${encodeURIComponent(id)}/abort`, {}) }, "Abort")
        : null,
      ...(match.view ? [] : waiting).map((role) => h("button", { onclick: () => askHint(role), name: "hint" },
                              `Hint for ${roles[role]}`)),
    ].filter((child) => child !== null));
    side.replaceChildren();
    if (view.hint) {
      side.append(h("h3", {}, `Hint for ${roles[view.hint.role]}`),
                  view.hint.ranking ? rankingTable(view.hint.ranking) : h("p", {}, "thinking…"));
    }
    for (const [role, ranking] of Object.entries(view.thinking)) {
      if (ranking.length) {
        side.append(h("h3", {}, `${roles[role]} (${match.players[role]}) ranks`), rankingTable(ranking));
      }
    }
    // The moves, with the errors of each step.
    moves.replaceChildren(...steps.slice(1).map((s, i) => {
      const errors = (s.errors || []).map((e, r) => (
        e ? errorText(roles[r], e, (s.reasons || [])[r]) : null)).filter(Boolean);
      return h("li", { class: i + 1 === index ? "current" : "" }, movesText(roles, s.moves),
               errors.length ? h("span", { class: "error" }, ` [${errors.join(", ")}]`) : null);
    }));
    if (steps[0] && (steps[0].errors || []).some(Boolean)) {
      const errors = steps[0].errors.map((e, r) => (
        e ? errorText(roles[r], e, (steps[0].reasons || [])[r]) : null)).filter(Boolean);
      moves.prepend(h("li", { class: "error" }, `start: ${errors.join(", ")}`));
    }
  }

  function tick() {
    const match = view.match;
    const step = match && match.steps[match.steps.length - 1];
    const untimed = match && match.waiting.length && !match.timed_person;
    if (!match || match.status !== "running" || !match.clocks.play || !step || untimed) {
      clock.textContent = "";
      return;
    }
    const left = (step.time + match.clocks.play * 1000 - (Date.now() + view.offset)) / 1000;
    clock.textContent = `play clock: ${Math.max(0, left).toFixed(1)} s`;
  }

  function receive(message) {
    const match = view.match;
    if (message.type === "snapshot") {
      view.match = message;
      view.offset = message.now - Date.now();
    } else if (message.type === "step") {
      match.steps = match.steps.filter((s) => s.index < message.index);
      if (match.steps.length) {
        const previous = match.steps[match.steps.length - 1];
        delete previous.legal;
      }
      match.steps.push(message);
      view.thinking = message.rankings || {};
      view.offset = message.now - Date.now();
    } else if (message.type === "waiting") match.waiting = message.waiting;
    else if (message.type === "thinking") view.thinking[message.role] = message.ranking;
    else if (message.type === "end") {
      Object.assign(match, { status: message.status, goals: message.goals, failure: message.failure,
                             waiting: [] });
      if (match.view) {  // over: the whole match, the states everyone was hiding
        api(`matches/${encodeURIComponent(id)}`).then((whole) => { view.match = whole; render(); });
      }
    }
    render();
  }

  const stored = await api(`matches/${encodeURIComponent(id)}`);
  if (stored.type === "snapshot") {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    view.socket = new WebSocket(`${scheme}://${location.host}/api/matches/${encodeURIComponent(id)}/live`);
    view.socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
    view.clock = setInterval(tick, 200);
  } else {
    view.match = stored;
    render();
  }
  return () => {
    if (view.socket) view.socket.close();
    if (view.clock) clearInterval(view.clock);
  };
}
