// Tournaments: start one, follow its progress, standings with 95% intervals and a plot.
import { api, h } from "./api.js";
import { faultList, gameChooser, playerChooser } from "./new_match.js";

const NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  parent.appendChild(node);
  return node;
}

// One bar per player: its score, and the whisker of its 95% interval.
function plot(rows) {
  const overall = rows.filter((row) => row.seat === "all");
  const width = 460, line = 34, left = 170, scale = width - left - 20;
  const root = document.createElementNS(NS, "svg");
  root.setAttribute("viewBox", `0 0 ${width} ${overall.length * line + 30}`);
  root.setAttribute("class", "plot");
  root.setAttribute("width", width);
  overall.forEach((row, i) => {
    const y = i * line + 10;
    svgEl("text", { x: 0, y: y + 16 }, root).textContent = `${row.agent + 1} ${row.spec}`.slice(0, 24);
    svgEl("rect", { x: left, y, width: Math.max(1, row.score * scale), height: 22, class: "bar" }, root);
    if (row.ci_low !== null) {
      const [a, b] = [left + row.ci_low * scale, left + row.ci_high * scale];
      svgEl("path", { d: `M${a} ${y + 11}H${b}M${a} ${y + 4}V${y + 18}M${b} ${y + 4}V${y + 18}`,
                      class: "interval" }, root);
    }
  });
  const axis = overall.length * line + 22;
  for (const tick of [0, 0.5, 1]) {
    svgEl("text", { x: left + tick * scale - 6, y: axis, class: "edge" }, root).textContent = tick;
  }
  return root;
}

function standingsTable(rows) {
  return h("table", { class: "standings" },
    h("tr", {}, ["player", "seat", "games", "wins", "draws", "losses", "score", "95% interval",
                 "TO", "CE", "IL"].map((name) => h("th", {}, name))),
    rows.map((row) => h("tr", {},
      h("td", {}, row.seat === "all" ? `${row.agent + 1} ${row.spec}` : ""),
      h("td", {}, row.seat), h("td", {}, row.games), h("td", {}, row.wins), h("td", {}, row.draws),
      h("td", {}, row.losses), h("td", {}, row.score.toFixed(3)),
      h("td", {}, row.ci_low === null ? "-" : `${row.ci_low.toFixed(2)}–${row.ci_high.toFixed(2)}`),
      row.errors.map((count) => h("td", {}, count)))));
}

function tournamentView(t, refresh) {
  const s = t.setup;
  const stop = t.status === "running"
    ? h("button", { onclick: async () => { await api(`tournaments/${t.id}/stop`, {}); refresh(); } },
        "Stop") : null;
  return h("section", { class: "tournament", "data-id": t.id },
    h("h3", {}, `${s.name}: ${s.players.join(" vs ")}`),
    h("p", {}, `${t.status}: ${t.done} of ${s.matches} matches`, s.swap ? ", seats swapped" : "",
      `, ${s.jobs} at once `, stop, t.failure ? h("span", { class: "error" }, ` ${t.failure}`) : null),
    t.standings.length ? h("div", { class: "match" }, standingsTable(t.standings), plot(t.standings))
      : null);
}

export async function tournamentsPage(page) {
  const catalogue = await api("games");
  const players = h("div", {});
  let choosers = [];
  const agents = catalogue.agents.filter((a) => a !== "person");
  const game = gameChooser(catalogue, (roles) => {
    choosers = (roles || []).map((role, i) => (role === "random" ? null
      : playerChooser(role, i, agents, i ? "random" : "mcts")));
    players.replaceChildren(...choosers.filter(Boolean));
    if (!roles) players.append(h("p", {}, "The players are chosen once the game is checked."));
  });
  const matches = h("input", { type: "number", min: "1", max: "1000", value: "10", name: "matches" });
  const jobs = h("input", { type: "number", min: "1", value: "1", name: "jobs" });
  const swap = h("input", { type: "checkbox", name: "swap", checked: "" });
  const playclock = h("input", { type: "number", min: "0.5", step: "0.5", value: "10", name: "playclock" });
  const message = h("div", {});
  const list = h("div", {});
  let timer = null;
  const refresh = async () => {
    const { tournaments } = await api("tournaments");
    list.replaceChildren(...tournaments.map((t) => tournamentView(t, refresh)));
    if (!tournaments.length) list.append(h("p", {}, "No tournament yet."));
    clearTimeout(timer);
    if (tournaments.some((t) => t.status === "running") && document.body.contains(list)) {
      timer = setTimeout(refresh, 1000);
    }
  };
  const start = async (event) => {
    event.preventDefault();
    message.replaceChildren();
    try {
      await api("tournaments", {
        game: game.request(), players: choosers.map((c) => (c ? c.spec() : "random")),
        matches: Number(matches.value), jobs: Number(jobs.value), swap: swap.checked,
        startclock: playclock.value, playclock: playclock.value,
      });
      refresh();
    } catch (error) {
      message.replaceChildren(h("p", { class: "error" }, error.message),
                              error.faults && error.faults.length > 1 ? faultList(error.faults) : null);
    }
  };
  page.append(h("h2", {}, "Tournaments"),
    h("form", { onsubmit: start },
      h("fieldset", {}, h("legend", {}, "Game"), game),
      h("fieldset", {}, h("legend", {}, "Players (seat order of the first match)"), players),
      h("fieldset", {}, h("legend", {}, "Matches"),
        h("label", {}, "matches ", matches), h("label", {}, "at once ", jobs),
        h("label", {}, swap, " swap seats"), h("label", {}, "clocks (s) ", playclock)),
      h("button", { type: "submit", name: "start" }, "Start the tournament")),
    message, list);
  await refresh();
  return () => clearTimeout(timer);
}
