// The arena's page: a router over the hash (#/, #/match/ID, #/history, #/tournaments).
import { h } from "./api.js";
import { newMatchPage } from "./new_match.js";
import { matchPage } from "./match.js";
import { historyPage } from "./history.js";
import { tournamentsPage } from "./tournaments.js";

const page = document.getElementById("page");
let leave = null;

async function route() {
  if (leave) leave();
  leave = null;
  const [, name, id] = location.hash.split("/");
  page.replaceChildren();
  try {
    if (name === "match" && id) leave = await matchPage(page, decodeURIComponent(id));
    else if (name === "history") await historyPage(page);
    else if (name === "tournaments") leave = await tournamentsPage(page);
    else await newMatchPage(page);
  } catch (error) {
    page.replaceChildren(h("p", { class: "error" }, error.message));
  }
}

window.addEventListener("hashchange", route);
route();
