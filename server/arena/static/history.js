// The history: every match the arena knows (started here or found in the log folder).
import { api, goalsText, h } from "./api.js";

export async function historyPage(page) {
  const game = h("input", { name: "game", placeholder: "game, e.g. tictactoe" });
  const player = h("input", { name: "player", placeholder: "player, e.g. mcts" });
  const table = h("table", { class: "history" });
  const load = async () => {
    const query = new URLSearchParams();
    if (game.value.trim()) query.set("game", game.value.trim());
    if (player.value.trim()) query.set("player", player.value.trim());
    const { matches } = await api(`matches?${query}`);
    table.replaceChildren(
      h("tr", {}, ["started", "game", "players", "status", "result", "steps", "errors", ""].map(
        (name) => h("th", {}, name))),
      ...matches.map((m) => h("tr", {},
        h("td", {}, new Date(m.started * 1000).toLocaleString()),
        h("td", {}, m.game),
        h("td", {}, m.roles.map((r, i) => `${r}: ${m.players[i] ?? "?"}`).join(", ")),
        h("td", {}, m.status),
        h("td", {}, m.goals ? goalsText(m.roles, m.goals) : m.failure || ""),
        h("td", {}, m.steps),
        h("td", {}, m.errors),
        h("td", {}, h("a", { href: `#/match/${encodeURIComponent(m.id)}` },
                      m.status === "running" ? "watch" : "replay")))));
    if (!matches.length) table.append(h("tr", {}, h("td", { colspan: 8 }, "no matches")));
  };
  const refresh = async () => {
    await api("import", {});
    await load();
  };
  page.append(h("h2", {}, "History"),
    h("form", { onsubmit: (e) => { e.preventDefault(); load(); } }, game, " ", player, " ",
      h("button", { type: "submit" }, "Filter"), " ",
      h("button", { type: "button", onclick: refresh }, "Find new logs")),
    table);
  await load();
}
