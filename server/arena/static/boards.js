// SVG boards of the six built-in games (and their GDL twins), drawn from the state's facts.
// drawBoard(board, facts, play) returns an <svg>; play = {legal: Set of moves, onMove} or null.

const NS = "http://www.w3.org/2000/svg";
const COLORS = {
  red: "#d33", black: "#222", blue: "#2a6fd6", white: "#f4f4f4", x: "#c0392b", o: "#1f6fb2",
};

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function parse(fact) {
  return fact.replace(/[()]/g, " ").trim().split(/\s+/);
}

function facts(state, relation) {
  return state.map(parse).filter((parts) => parts[0] === relation);
}

function svg(width, height, label) {
  return el("svg", { viewBox: `0 0 ${width} ${height}`, class: "board", role: "img",
                     "aria-label": label });
}

// A clickable area: `move` is played when it is legal and the page lets the person move.
function target(node, move, play) {
  node.dataset.move = move;
  if (play && play.legal.has(move)) {
    node.classList.add("legal");
    node.addEventListener("click", () => play.onMove(move));
  }
  return node;
}

function mark(root, symbol, x, y, size) {
  if (symbol === "x") {
    const d = size * 0.3;
    el("path", { d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}`,
                 stroke: COLORS.x, "stroke-width": size * 0.1, "stroke-linecap": "round",
                 class: "piece" }, root);
  } else if (symbol === "o") {
    el("circle", { cx: x, cy: y, r: size * 0.3, fill: "none", stroke: COLORS.o,
                   "stroke-width": size * 0.1, class: "piece" }, root);
  }
}

function tictactoe(board, state, play) {
  const root = svg(300, 300, "tic-tac-toe board");
  for (const [, row, col, symbol] of facts(state, "cell")) {
    const x = (col - 1) * 100, y = (row - 1) * 100;
    target(el("rect", { x: x + 2, y: y + 2, width: 96, height: 96, class: "square" }, root),
           `(mark ${row} ${col})`, play);
    mark(root, symbol, x + 50, y + 50, 100);
  }
  return root;
}

function ultimate(board, state, play) {
  const root = svg(468, 468, "ultimate tic-tac-toe board");
  root.setAttribute("viewBox", "-3 -3 474 474");
  const cell = 50;
  const at = (big, small) => (big - 1) * 158 + (small - 1) * cell + 5;
  for (let b = 0; b < 9; b++) {
    el("rect", { x: (b % 3) * 158, y: Math.floor(b / 3) * 158, width: 152, height: 152,
                 class: "subboard" }, root);
  }
  for (const [, br, bc, row, col, symbol] of facts(state, "cell")) {
    const x = at(bc, col), y = at(br, row);
    target(el("rect", { x, y, width: cell - 3, height: cell - 3, class: "square" }, root),
           `(mark ${br} ${bc} ${row} ${col})`, play);
    mark(root, symbol, x + cell / 2 - 1, y + cell / 2 - 1, cell);
  }
  return root;
}

function stones(root, x, y, r, role) {
  el("circle", { cx: x, cy: y, r, fill: COLORS[role] || "#888", stroke: "#111",
                 "stroke-width": 1, class: `piece ${role}` }, root);
}

function connectFour(board, state, play) {
  const w = board.width || 7, h = board.height || 6, s = 60;
  const root = svg(w * s, h * s, "Connect Four board");
  el("rect", { x: 0, y: 0, width: w * s, height: h * s, fill: "#1f4fa8", rx: 8 }, root);
  const taken = new Map(facts(state, "cell").map(([, x, y, role]) => [`${x} ${y}`, role]));
  for (let x = 1; x <= w; x++) {
    for (let y = 1; y <= h; y++) {
      const role = taken.get(`${x} ${y}`);
      const cy = (h - y) * s + s / 2;
      if (role) stones(root, (x - 1) * s + s / 2, cy, s * 0.4, role);
      else el("circle", { cx: (x - 1) * s + s / 2, cy, r: s * 0.4, fill: "#fff" }, root);
    }
    target(el("rect", { x: (x - 1) * s, y: 0, width: s, height: h * s, class: "column" }, root),
           `(drop ${x})`, play);
  }
  return root;
}

function squareBoard(n, label, state, relation, play, squareMove) {
  const s = 50;
  const root = svg(n * s, n * s, label);
  for (let x = 1; x <= n; x++) {
    for (let y = 1; y <= n; y++) {
      const node = el("rect", { x: (x - 1) * s, y: (n - y) * s, width: s, height: s,
                                class: (x + y) % 2 ? "square light" : "square dark" }, root);
      if (squareMove) target(node, squareMove(x, y), play);
      node.dataset.square = `${x} ${y}`;
    }
  }
  for (const [, x, y, role] of facts(state, relation)) {
    stones(root, (x - 1) * s + s / 2, (n - y) * s + s / 2, s * 0.38, role);
  }
  return root;
}

function othello(board, state, play) {
  const root = squareBoard(8, "Othello board", state, "cell", play, (x, y) => `(move ${x} ${y})`);
  root.classList.add("othello");
  return root;
}

// Breakthrough: click one of your pieces, then where it goes.
function breakthrough(board, state, play) {
  const root = squareBoard(8, "Breakthrough board", state, "cellholds", null, null);
  if (!play) return root;
  const moves = [...play.legal].map((move) => [move, parse(move)]);
  let from = null;
  const squares = [...root.querySelectorAll("rect.square")];
  const refresh = () => {
    for (const node of squares) {
      const [x, y] = node.dataset.square.split(" ");
      const starts = moves.some(([, p]) => p[1] === x && p[2] === y);
      const ends = from && moves.some(([, p]) => p[1] === from[0] && p[2] === from[1]
                                             && p[3] === x && p[4] === y);
      node.classList.toggle("legal", Boolean(starts || ends));
      node.classList.toggle("selected", Boolean(from && from[0] === x && from[1] === y));
    }
  };
  for (const node of squares) {
    node.addEventListener("click", () => {
      const [x, y] = node.dataset.square.split(" ");
      if (from) {
        const move = `(move ${from[0]} ${from[1]} ${x} ${y})`;
        if (play.legal.has(move)) return play.onMove(move);
      }
      from = moves.some(([, p]) => p[1] === x && p[2] === y) ? [x, y] : null;
      refresh();
    });
  }
  for (const piece of root.querySelectorAll(".piece")) piece.style.pointerEvents = "none";
  refresh();
  return root;
}

// The sides of a Hex cell facing off the board, as runs of its corners (0 at the upper right,
// clockwise): red joins the top row and the bottom row, blue column 1 and the last column.
const HEX_EDGES = { top: [4, 5, 0], bottom: [1, 2, 3], left: [2, 3, 4], right: [5, 0, 1] };

function hex(board, state, play) {
  const n = board.size || 7, r = 20, w = Math.sqrt(3) * r;
  const root = svg(w * (n + (n - 1) / 2) + 2 * r, 1.5 * r * (n - 1) + 4 * r, "Hex board");
  const taken = new Map(facts(state, "cell").map(([, row, col, role]) => [`${row} ${col}`, role]));
  const edges = [];
  for (let i = 0; i < n; i++) {
    const row = String.fromCharCode(97 + i);
    for (let c = 1; c <= n; c++) {
      const cx = r + w / 2 + (c - 1) * w + i * w / 2, cy = 2 * r + i * 1.5 * r;
      const corners = [...Array(6).keys()].map((k) => {
        const a = Math.PI / 180 * (60 * k - 30);
        return `${cx + r * Math.cos(a)},${cy + r * Math.sin(a)}`;
      });
      const role = taken.get(`${row} ${c}`);
      const cell = el("polygon", { points: corners.join(" "), class: "hexcell",
                                   fill: role ? COLORS[role] : "#eee" }, root);
      if (role) cell.classList.add("piece", role);
      target(cell, `(place ${row} ${c})`, play);
      const sides = [[i === 0, "top", "red"], [i === n - 1, "bottom", "red"],
                     [c === 1, "left", "blue"], [c === n, "right", "blue"]];
      for (const [onEdge, side, owner] of sides) {
        if (onEdge) edges.push([HEX_EDGES[side].map((k) => corners[k]).join(" "), owner]);
      }
    }
  }
  for (const [points, owner] of edges) {
    el("polyline", { points, class: `hexedge ${owner}`, fill: "none", stroke: COLORS[owner],
                     "stroke-width": 5, "stroke-linecap": "round" }, root);
  }
  el("text", { x: 4, y: 1.5 * r * (n - 1) + 4 * r - 4, class: "edge" }, root).textContent =
    "red joins top and bottom, blue left and right";
  return root;
}

const DRAW = { tictactoe, connect_four: connectFour, othello, ultimate_tictactoe: ultimate,
               hex, breakthrough };

export function drawBoard(board, state, play) {
  const draw = board && DRAW[board.kind];
  return draw ? draw(board, state, play) : null;
}

// Any other game: the state's facts, grouped by relation, one row of arguments each.
export function factsView(state) {
  const groups = new Map();
  for (const fact of state) {
    const parts = fact.startsWith("(") ? fact.slice(1, -1) : fact;
    const name = parts.split(/\s+/)[0];
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(parts.slice(name.length).trim());
  }
  const root = document.createElement("div");
  root.className = "facts";
  for (const [name, rows] of [...groups].sort()) {
    const box = document.createElement("section");
    const title = document.createElement("h4");
    title.textContent = `${name} (${rows.length})`;
    const list = document.createElement("ul");
    for (const row of rows) {
      const item = document.createElement("li");
      item.textContent = row || name;
      list.appendChild(item);
    }
    box.append(title, list);
    root.appendChild(box);
  }
  return root;
}
