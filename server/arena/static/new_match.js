// The form that starts a match: a game, a player per role, the clocks.
import { api, h } from "./api.js";

const MAX_UPLOAD = 200000;

export function faultList(faults) {
  return h("ul", { class: "faults" }, faults.map((fault) =>
    h("li", { class: "fault" }, fault.line ? `line ${fault.line}: ${fault.message}` : fault.message)));
}

// One player's choice: the kind of player and its settings, read back as a spec.
export function playerChooser(role, index, kinds, preset = "mcts") {
  const kind = h("select", { name: `kind-${index}`, "aria-label": `player of ${role}` },
    kinds.map((name) => h("option", { value: name, selected: name === preset }, name)),
    h("option", { value: "url" }, "GGP player (URL)"));
  const time = h("input", { type: "number", step: "0.1", min: "0.1", value: "1", name: `time-${index}` });
  const iterations = h("input", { type: "number", min: "1", name: `iterations-${index}` });
  const c = h("input", { type: "number", step: "0.1", min: "0", name: `c-${index}` });
  const url = h("input", { type: "url", placeholder: "http://127.0.0.1:9147", name: `url-${index}` });
  const mcts = h("span", {}, h("label", {}, "seconds ", time), h("label", {}, "iterations ", iterations),
                 h("label", {}, "c ", c));
  const remote = h("span", {}, url);
  const show = () => {
    mcts.hidden = kind.value !== "mcts";
    remote.hidden = kind.value !== "url";
  };
  kind.addEventListener("change", show);
  show();
  const node = h("div", { class: "player" }, h("strong", {}, `${role}: `), kind, mcts, remote);
  node.spec = () => {
    if (kind.value === "url") return url.value.trim();
    if (kind.value !== "mcts") return kind.value;
    const options = [];
    if (time.value) options.push(`time=${time.value}`);
    if (iterations.value) options.push(`iterations=${iterations.value}`);
    if (c.value) options.push(`c=${c.value}`);
    return options.length ? `mcts:${options.join(",")}` : "mcts";
  };
  return node;
}

// The game chooser: built-ins, files of --games, pasted or uploaded GDL; calls
// onRoles(roles or null) when the roles of the chosen game are known.
export function gameChooser(catalogue, onRoles) {
  const select = h("select", { name: "game", "aria-label": "game" },
    h("optgroup", { label: "Built-in" },
      catalogue.builtin.map((g) => h("option", { value: `builtin:${g.name}` }, g.name))),
    catalogue.files.length ? h("optgroup", { label: "Games folder" },
      catalogue.files.map((name) => h("option", { value: `file:${name}` }, name))) : null,
    h("option", { value: "gdl" }, "GDL: paste or upload"));
  const options = h("input", { name: "options", placeholder: "options, e.g. width=5,height=4" });
  const twin = h("input", { type: "checkbox", name: "twin" });
  const builtin = h("span", {}, " ", options, h("label", {}, twin, " through its GDL twin"));
  const rules = h("textarea", { name: "rules", rows: 12, placeholder: "(role white) ..." });
  const gameName = h("input", { name: "gamename", placeholder: "its name (else its roles)" });
  const upload = h("input", { type: "file", accept: ".kif,.gdl,.txt", name: "upload" });
  const report = h("div", { class: "report" });
  const check = h("button", { type: "button", name: "check" }, "Check");
  const gdl = h("div", {}, rules, h("div", {}, h("label", {}, "Name ", gameName), upload, " ", check),
                report);
  const request = () => {
    const value = select.value;
    if (value === "gdl") {
      return { rules: rules.value,
               name: gameName.value.trim() || upload.files[0]?.name.replace(/\.\w+$/, "") };
    }
    if (value.startsWith("file:")) return { file: value.slice(5) };
    const spec = value.slice(8) + (options.value.trim() ? `:${options.value.trim()}` : "");
    return { builtin: spec, gdl: twin.checked };
  };
  const checkGame = async () => {
    report.replaceChildren("checking…");
    try {
      const result = await api("check", { game: request() });
      if (result.ok) {
        report.replaceChildren(h("p", { class: "ok" }, `valid GDL: roles ${result.roles.join(", ")}`));
        onRoles(result.roles);
      } else {
        report.replaceChildren(h("p", { class: "error" }, "This game has faults:"),
                               faultList(result.faults));
        onRoles(null);
      }
    } catch (error) {
      report.replaceChildren(h("p", { class: "error" }, error.message));
      onRoles(null);
    }
  };
  const changed = () => {
    builtin.hidden = !select.value.startsWith("builtin:");
    gdl.hidden = select.value !== "gdl";
    report.replaceChildren();
    if (select.value.startsWith("builtin:")) {
      onRoles(catalogue.builtin.find((g) => `builtin:${g.name}` === select.value).roles);
    } else if (select.value.startsWith("file:")) checkGame();
    else onRoles(null);
  };
  upload.addEventListener("change", async () => {
    const file = upload.files[0];
    if (!file) return;
    if (file.size > MAX_UPLOAD) {
      report.replaceChildren(h("p", { class: "error" }, `${file.name} is over ${MAX_UPLOAD} bytes`));
      return;
    }
    rules.value = await file.text();
    checkGame();
  });
  check.addEventListener("click", checkGame);
  select.addEventListener("change", changed);
  const node = h("div", {}, h("label", {}, "Game ", select), builtin, gdl);
  node.request = request;
  setTimeout(changed);
  return node;
}

export async function newMatchPage(page) {
  const catalogue = await api("games");
  const players = h("div", { class: "players" });
  let choosers = [];
  const game = gameChooser(catalogue, (roles) => {
    choosers = (roles || []).map((role, i) =>
      role === "random" ? null : playerChooser(role, i, catalogue.agents, i === 0 ? "person" : "mcts"));
    players.replaceChildren(...choosers.filter(Boolean));
    if (!roles) players.append(h("p", {}, "The players are chosen once the game is checked."));
  });
  const startclock = h("input", { type: "number", min: "1", value: "10", name: "startclock" });
  const playclock = h("input", { type: "number", min: "0.5", step: "0.5", value: "10", name: "playclock" });
  const timed = h("input", { type: "checkbox", name: "timed" });
  const message = h("div", {});
  const start = async (event) => {
    event.preventDefault();
    message.replaceChildren();
    const specs = choosers.map((chooser) => (chooser ? chooser.spec() : "random"));
    try {
      const match = await api("matches", {
        game: game.request(), players: specs, startclock: startclock.value,
        playclock: playclock.value, timed_person: timed.checked,
      });
      location.hash = `#/match/${encodeURIComponent(match.id)}`;
    } catch (error) {
      message.replaceChildren(h("p", { class: "error" }, error.message),
                              error.faults && error.faults.length > 1 ? faultList(error.faults) : null);
    }
  };
  page.append(
    h("h2", {}, "New match"),
    h("form", { onsubmit: start },
      h("fieldset", {}, h("legend", {}, "Game"), game),
      h("fieldset", {}, h("legend", {}, "Players"), players),
      h("fieldset", {}, h("legend", {}, "Clocks (seconds)"),
        h("label", {}, "start ", startclock), h("label", {}, "play ", playclock),
        h("label", {}, timed, " time the person too")),
      h("button", { type: "submit", name: "start" }, "Start the match")),
    message);
}
