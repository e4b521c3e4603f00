// SVG boards of the six built-in games (and their GDL twins), drawn from the state's facts,
// with the coordinates the moves use written along the edges (as the terminal shows them).
// drawBoard(board, facts, play) returns an <svg>; play = {legal: Set of moves, onMove} or null.
// markMoves(svg, moves, className) marks where moves are played (a hint, an agent's choice);
// winningLine(board, facts) is the line that won a tic-tac-toe or Connect Four match.

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

const MARGIN = 22;  // room above and left of a board for its coordinates

function svg(width, height, label, margin = MARGIN) {
  return el("svg", { viewBox: `${-margin} ${-margin} ${width + margin} ${height + margin}`,
                     class: "board", role: "img", "aria-label": label });
}

function coordinate(root, text, x, y) {
  const node = el("text", { x, y, class: "coordinate", "text-anchor": "middle",
                            "dominant-baseline": "middle" }, root);
  node.textContent = text;
  return node;
}

// Numbers across the top (columns) and down the left side (rows), each centred on its cells.
function edgeLabels(root, columns, rows) {
  for (const [text, x] of columns) coordinate(root, text, x, -MARGIN / 2);
  for (const [text, y] of rows) coordinate(root, text, -MARGIN / 2, y);
}

const range = (n) => [...Array(n).keys()].map((i) => i + 1);

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
  edgeLabels(root, range(3).map((c) => [c, (c - 1) * 100 + 50]),
             range(3).map((r) => [r, (r - 1) * 100 + 50]));
  for (const [, row, col, symbol] of facts(state, "cell")) {
    const x = (col - 1) * 100, y = (row - 1) * 100;
    target(el("rect", { x: x + 2, y: y + 2, width: 96, height: 96, class: "square" }, root),
           `(mark ${row} ${col})`, play);
    mark(root, symbol, x + 50, y + 50, 100);
  }
  return root;
}

function ultimate(board, state, play) {
  const root = svg(468, 468, "ultimate tic-tac-toe board", 40);
  const cell = 50;
  const at = (big, small) => (big - 1) * 158 + (small - 1) * cell + 5;
  for (let big = 1; big <= 3; big++) {  // the board's number, then the cell's in that board
    const middle = at(big, 2) + cell / 2 - 1;
    coordinate(root, big, middle, -30).classList.add("big");
    coordinate(root, big, -30, middle).classList.add("big");
    for (let small = 1; small <= 3; small++) {
      coordinate(root, small, at(big, small) + cell / 2 - 1, -12);
      coordinate(root, small, -12, at(big, small) + cell / 2 - 1);
    }
  }
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
  edgeLabels(root, range(w).map((x) => [x, (x - 1) * s + s / 2]), []);
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
  edgeLabels(root, range(n).map((x) => [x, (x - 1) * s + s / 2]),
             range(n).map((y) => [y, (n - y) * s + s / 2]));
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
  const root = svg(w * (n + (n - 1) / 2) + 2 * r, 1.5 * r * (n - 1) + 4 * r, "Hex board", 0);
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
      if (i === 0) coordinate(root, c, cx, cy - 1.6 * r);
      if (c === 1) coordinate(root, row, cx - 1.4 * r, cy);
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

// Mark the cells, columns or squares where `moves` are played with `className` (Breakthrough:
// the square moved from and the square moved to).
export function markMoves(root, moves, className) {
  for (const move of moves) {
    const parts = parse(move);
    for (const node of root.querySelectorAll("[data-move], [data-square]")) {
      const square = node.dataset.square;
      const moved = parts[0] === "move" && parts.length === 5 && !node.dataset.move
        && (square === `${parts[1]} ${parts[2]}` || square === `${parts[3]} ${parts[4]}`);
      if (node.dataset.move === move || moved) node.classList.add(className);
    }
  }
}

// The cells of a line of three (tic-tac-toe) or four (Connect Four) of one player, with the
// centres of its ends on the drawn board; null when the game has none or nobody made one.
export function winningLine(board, state) {
  const kind = board && board.kind;
  if (kind !== "tictactoe" && kind !== "connect_four") return null;
  const length = kind === "tictactoe" ? 3 : 4;
  const owner = new Map();
  for (const [, a, b, who] of facts(state, "cell")) {
    if (who !== "b" && who !== "blank") owner.set(`${a} ${b}`, who);
  }
  for (const [key, who] of owner) {
    const [a, b] = key.split(" ").map(Number);
    for (const [da, db] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
      const cells = range(length).map((k) => [a + (k - 1) * da, b + (k - 1) * db]);
      if (cells.every(([x, y]) => owner.get(`${x} ${y}`) === who)) {
        const centre = kind === "tictactoe"
          ? ([row, col]) => [(col - 1) * 100 + 50, (row - 1) * 100 + 50]
          : ([x, y]) => [(x - 1) * 60 + 30, ((board.height || 6) - y) * 60 + 30];
        return { who, cells, from: centre(cells[0]), to: centre(cells[length - 1]) };
      }
    }
  }
  return null;
}

export function drawWinningLine(root, line) {
  el("line", { x1: line.from[0], y1: line.from[1], x2: line.to[0], y2: line.to[1],
               class: "winning-line" }, root);
}

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
