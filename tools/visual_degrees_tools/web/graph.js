import { $, svg } from "./dom.js";
import { clamp } from "./format.js";
import { layout } from "./layout.js";
import { pairOf } from "./run_view.js";
import { markDirty, page, scheduleView } from "./state.js";

// The graph: people as dots, proven links as lines, laid out (layout.js) in the screen pixels of the panel (the viewBox is the drawn size), so a 12 px label is
// 12 px on a phone too. People are placed in bands between A (left) and B (right) by their distance
// from each, the chain on the middle line; every band is a grid over the whole height, so nothing
// piles up. Only A, B, the chain and the people seen with A or with B are named by default; the
// rest are dots until "Name everyone", zooming in, or a tap. Labels never overlap: each tries a few
// places round its dot, in priority order, and stays hidden if none is free.
const ZOOM_MAX = 6;
const FONT = { endpoint: 13, path: 13, frontier: 12, other: 11 }; // px on screen, never below 11
const RADIUS = { endpoint: 9, path: 7, frontier: 5, other: 3.5 };
const RANK = { endpoint: 0, path: 1, frontier: 2, other: 3 };

export const graphView = {
  W: 800, H: 460, k: 1, tx: 0, ty: 0, // screen = layout × k + t
  nodes: [], edges: [], byId: new Map(), nameAll: false, showAll: false, selected: null,
  pointers: new Map(), moved: 0, pinch: null, pressed: null,
};

function graphSize() {
  const canvas = $("graph");
  const W = Math.max(260, Math.round(canvas.parentElement.clientWidth -
    parseFloat(getComputedStyle(canvas.parentElement).paddingLeft) -
    parseFloat(getComputedStyle(canvas.parentElement).paddingRight)) || 800);
  const H = W < 640 ? Math.round(Math.min(600, Math.max(440, W * 1.4))) : Math.round(Math.min(640, Math.max(440, W * 0.5)));
  return { W, H };
}

export function drawGraph() {
  const view = page.view;
  const canvas = $("graph");
  const { W, H } = graphSize();
  const resized = W !== graphView.W || H !== graphView.H;
  graphView.W = W;
  graphView.H = H;
  canvas.setAttribute("viewBox", `0 0 ${W} ${H}`);
  if (resized) { graphView.k = 1; graphView.tx = 0; graphView.ty = 0; }
  canvas.replaceChildren();
  graphView.nodes = [];
  graphView.edges = [];
  graphView.byId = new Map();
  if (!view || view.nodes.size === 0) {
    $("graph-count").textContent = "";
    showOffRoute(0);
    return;
  }
  const chains = view.highlighted();
  const a = view.keyOf(view.personA);
  const b = view.keyOf(view.personB);
  const drawn = layout(W, H, {
    a, b, nodes: view.nodes, edges: view.edges, chains, final: view.final, showAll: graphView.showAll,
  });
  const chainPairs = new Set();
  for (const keys of chains) for (let i = 1; i < keys.length; i += 1) chainPairs.add(pairOf(keys[i - 1], keys[i]));
  const pathClass = view.final ? "on-path" : "partial-path";

  const edgeLayer = svg("g", { class: "edges" });
  const top = [];
  for (const e of drawn.edges) {
    const line = svg("line", { class: "edge" });
    const entry = { source: e.source, target: e.target, line };
    if (chainPairs.has(pairOf(e.source, e.target))) {
      line.classList.add(pathClass);
      top.push(line);
    } else {
      edgeLayer.append(line);
    }
    graphView.edges.push(entry);
  }
  edgeLayer.append(...top); // the chain drawn last, on top

  const nodeLayer = svg("g", { class: "nodes" });
  const labelLayer = svg("g", { class: "labels" });
  const leaderLayer = svg("g", { class: "leaders" });
  const order = [...drawn.nodes].sort((p, q) => RANK[q.role] - RANK[p.role]); // important dots on top
  for (const n of order) {
    const group = svg("g", { class: `node ${n.role}` });
    group.dataset.key = n.id;
    if (n.role === "path") group.classList.add(pathClass);
    if (n.role === "endpoint" && chains.some((keys) => keys.length > 1 && keys.includes(n.id))) group.classList.add(pathClass);
    if (n.nearA) group.classList.add("near-a");
    if (n.nearB) group.classList.add("near-b");
    if (n.offRoute) group.classList.add("off-route");
    const r = RADIUS[n.role];
    group.append(svg("circle", { r }));
    const title = svg("title");
    title.textContent = n.name;
    group.append(title);
    nodeLayer.append(group);
    const label = svg("text", { class: `label ${n.role}`, "font-size": fontOf(n.role), display: "none" });
    label.dataset.key = n.id;
    labelLayer.append(label);
    const leader = svg("line", { class: "leader", display: "none" });
    leaderLayer.append(leader);
    const entry = { ...n, r, group, label, leader, lines: null };
    graphView.nodes.push(entry);
    graphView.byId.set(n.id, entry);
  }
  // The measuring text: laid out (so it can be measured) but never seen.
  const measure = svg("text", { class: "measure", visibility: "hidden", "aria-hidden": "true", x: -1000, y: -1000 });
  canvas.append(edgeLayer, leaderLayer, nodeLayer, labelLayer, measure);
  graphView.measure = measure;
  graphView.sizes = new Map();
  // Label priority: A and B, the chain in its order, the people seen with A or B by how linked they are.
  const along = new Map();
  for (const keys of chains) keys.forEach((key, i) => { if (!along.has(key)) along.set(key, i); });
  const step = (n) => (n.role === "path" ? along.get(n.id) ?? 0 : 0);
  graphView.nodes.sort((p, q) => RANK[p.role] - RANK[q.role] || step(p) - step(q) ||
    (p.role === "path" ? p.x - q.x : 0) || q.degree - p.degree || p.name.localeCompare(q.name));
  $("graph-count").textContent =
    `(${drawn.nodes.length} ${drawn.nodes.length === 1 ? "person" : "people"}, ${drawn.edges.length} ${drawn.edges.length === 1 ? "link" : "links"})`;
  showOffRoute(drawn.offRoute);
  const nearA = $("legend-near-a");
  const nearB = $("legend-near-b");
  const chainKey = $("legend-path");
  chainKey.textContent = view.final || !chains.some((keys) => keys.length > 1) ? "the chain" : "the chain so far";
  chainKey.classList.toggle("partial", !view.final);
  nearA.textContent = view.personA ? `seen with ${view.personA}` : "seen with A";
  nearB.textContent = view.personB ? `seen with ${view.personB}` : "seen with B";
  applyView();
}

// How many people were seen on no route between the sides, and the control that draws them too.
function showOffRoute(count) {
  const line = $("graph-off-route");
  line.hidden = count === 0;
  const people = count === 1 ? "person" : "people";
  $("graph-off-route-text").textContent = graphView.showAll
    ? `Everyone seen is drawn; ${count} ${people} of them on no route between the sides — `
    : `+${count} ${people} seen, not on any route between the sides — `;
  const button = $("show-all");
  button.textContent = graphView.showAll ? "show only the routes" : "show all";
  button.setAttribute("aria-pressed", String(graphView.showAll));
}

// Width and height of a line of text as a label of this role shows it, measured once.
function textSize(text, size, role) {
  const id = `${role}\u0000${size}\u0000${text}`;
  let known = graphView.sizes.get(id);
  if (!known) {
    const m = graphView.measure;
    m.setAttribute("class", `measure ${role}`);
    m.setAttribute("font-size", size);
    m.textContent = text;
    const box = m.getBBox();
    known = { w: Math.ceil(box.width), h: Math.ceil(box.height), ascent: -1000 - box.y };
    graphView.sizes.set(id, known);
  }
  return known;
}

const fontOf = (role) => (graphView.W < 640 && FONT[role] > 12 ? 12 : FONT[role]);

// A name on one line, or broken at spaces and hyphens into two or three lines (the narrowest way).
function labelShapes(n) {
  if (n.shapes) return n.shapes;
  const size = fontOf(n.role);
  const shape = (lines) => {
    const sizes = lines.map((line) => textSize(line, size, n.role));
    return {
      lines, size, widths: sizes.map((z) => z.w), w: Math.max(...sizes.map((z) => z.w)),
      h: sizes[0].h * lines.length, lineHeight: sizes[0].h, ascent: sizes[0].ascent,
    };
  };
  const breaks = [];
  for (let i = 1; i < n.name.length; i += 1) {
    if (n.name[i - 1] === " " || (n.name[i - 1] === "-" && n.name[i] !== " ")) breaks.push(i);
  }
  const cut = (from, to) => n.name.slice(from, to).trim();
  const narrowest = (shapes) => shapes.reduce((p, q) => (q.w < p.w ? q : p));
  const one = shape([n.name]);
  const shapes = [one];
  if (breaks.length) shapes.push(narrowest(breaks.map((i) => shape([cut(0, i), cut(i)]))));
  if (breaks.length > 1) {
    const threes = [];
    for (const i of breaks) for (const j of breaks) if (j > i) threes.push(shape([cut(0, i), cut(i, j), cut(j)]));
    const three = narrowest(threes);
    if (three.w < shapes[shapes.length - 1].w * 0.8) shapes.push(three);
  }
  // Long names try their narrower shapes first.
  if (one.w > (graphView.W < 640 ? 120 : 200)) shapes.push(shapes.shift());
  n.shapes = shapes;
  return shapes;
}

// Where a label may go round its dot, best first. The chain's and A's and B's labels prefer
// above and below (their links run left and right) and may stack a line or two further out.
function spots(n, sx, sy, shape) {
  const { w, h } = shape;
  const g = n.r + 3;
  const right = [sx + g, sy - h / 2];
  const leftSide = [sx - g - w, sy - h / 2];
  const around = (lift) => {
    const up = sy - g - h - lift;
    const down = sy + g + lift;
    return [
      [sx - w / 2, up], [sx - w / 2, down], [sx - 6, up], [sx + 6 - w, up], [sx - 6, down], [sx + 6 - w, down],
    ];
  };
  if (n.role === "endpoint" || n.role === "path") {
    const step = shape.lineHeight;
    return [...around(0), ...around(step), right, leftSide, ...around(2 * step), ...around(3 * step)];
  }
  return [right, leftSide, ...around(0)];
}

const overlaps = (p, q) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;
const overlap = (p, q) =>
  Math.max(0, Math.min(p.x + p.w, q.x + q.w) - Math.max(p.x, q.x)) *
  Math.max(0, Math.min(p.y + p.h, q.y + q.h) - Math.max(p.y, q.y));

// Each label in priority order (a tapped person, A and B, the chain, the people seen with A or B,
// then everyone else when asked) takes the first free place round its dot. A, B and the chain are
// always named: if no place is free of other dots they may cover a lesser dot, never a label.
function placeLabels() {
  const { W, H, k } = graphView;
  const inside = (r) => r.x >= 2 && r.y >= 2 && r.x + r.w <= W - 2 && r.y + r.h <= H - 2;
  const visible = (n) => n.sx >= 0 && n.sx <= W && n.sy >= 0 && n.sy <= H;
  const named = (n) => n.id === graphView.selected || n.role !== "other" || graphView.nameAll || k >= 1.5;
  const must = (n) => n.role === "endpoint" || n.role === "path" || n.id === graphView.selected;
  const dot = (n) => ({ id: n.id, x: n.sx - n.r - 1, y: n.sy - n.r - 1, w: 2 * n.r + 2, h: 2 * n.r + 2 });
  const shown = graphView.nodes.filter(visible);
  const dots = shown.filter((n) => n.role !== "other").map(dot);
  const keyDots = shown.filter(must).map(dot);
  const taken = [];
  const order = graphView.selected && graphView.byId.has(graphView.selected)
    ? [graphView.byId.get(graphView.selected), ...graphView.nodes.filter((n) => n.id !== graphView.selected)]
    : graphView.nodes;
  for (const n of order) {
    let spot = null;
    if (named(n) && visible(n)) {
      const tries = must(n) ? [dots, keyDots, null] : [dots];
      let fallback = null;
      search: for (const blocking of tries) {
        for (const shape of labelShapes(n)) {
          for (const [x, y] of spots(n, n.sx, n.sy, shape)) {
            const rect = { x, y, w: shape.w, h: shape.h };
            if (!inside(rect)) continue;
            const padded = { x: x - 3, y: y - 1, w: shape.w + 6, h: shape.h + 2 };
            if (blocking === null) {
              // The last resort: the place that covers the least of the labels already placed.
              const cost = taken.reduce((sum, r) => sum + overlap(padded, r), 0);
              if (!fallback || cost < fallback.cost) fallback = { cost, spot: { rect, shape } };
              continue;
            }
            if (taken.some((r) => overlaps(padded, r))) continue;
            if (blocking.some((d) => d.id !== n.id && overlaps(padded, d))) continue;
            spot = { rect, shape };
            break search;
          }
        }
      }
      if (!spot && fallback) spot = fallback.spot;
    }
    showLabel(n, spot);
    if (spot) taken.push(spot.rect);
  }
}

function showLabel(n, spot) {
  const label = n.label;
  if (!spot) {
    label.setAttribute("display", "none");
    n.leader.setAttribute("display", "none");
    return;
  }
  // A label set away from its dot gets a thin line to it.
  const { rect: r } = spot;
  const nx = clamp(n.sx, r.x, r.x + r.w);
  const ny = clamp(n.sy, r.y, r.y + r.h);
  const far = Math.hypot(nx - n.sx, ny - n.sy);
  if (far > n.r + 6) {
    const t = (n.r + 1) / far;
    n.leader.setAttribute("x1", (n.sx + (nx - n.sx) * t).toFixed(1));
    n.leader.setAttribute("y1", (n.sy + (ny - n.sy) * t).toFixed(1));
    n.leader.setAttribute("x2", nx.toFixed(1));
    n.leader.setAttribute("y2", ny.toFixed(1));
    n.leader.removeAttribute("display");
  } else {
    n.leader.setAttribute("display", "none");
  }
  const { rect, shape } = spot;
  if (n.lines !== shape.lines) {
    n.lines = shape.lines;
    label.replaceChildren(...shape.lines.map((line) => {
      const span = svg("tspan");
      span.textContent = line;
      return span;
    }));
  }
  const cx = rect.x + rect.w / 2;
  [...label.children].forEach((span, i) => {
    span.setAttribute("x", cx.toFixed(1));
    span.setAttribute("y", (rect.y + shape.ascent + i * shape.lineHeight).toFixed(1));
  });
  label.setAttribute("text-anchor", "middle");
  label.removeAttribute("display");
}

export function applyView() {
  const { k, tx, ty } = graphView;
  for (const n of graphView.nodes) {
    n.sx = n.x * k + tx;
    n.sy = n.y * k + ty;
    n.group.setAttribute("transform", `translate(${n.sx.toFixed(1)},${n.sy.toFixed(1)})`);
    n.group.classList.toggle("selected", n.id === graphView.selected);
  }
  for (const e of graphView.edges) {
    const p = graphView.byId.get(e.source);
    const q = graphView.byId.get(e.target);
    e.line.setAttribute("x1", p.sx.toFixed(1));
    e.line.setAttribute("y1", p.sy.toFixed(1));
    e.line.setAttribute("x2", q.sx.toFixed(1));
    e.line.setAttribute("y2", q.sy.toFixed(1));
    e.line.classList.toggle("selected", e.source === graphView.selected || e.target === graphView.selected);
  }
  placeLabels();
  graphView.shown = { k, tx, ty };
  const canvas = $("graph");
  canvas.classList.toggle("zoomed", k > 1.001);
  canvas.dataset.zoom = k.toFixed(3);
  $("zoom-out").disabled = k <= 1.001;
  $("zoom-in").disabled = k >= ZOOM_MAX - 0.001;
  $("zoom-fit").disabled = k <= 1.001;
}

// ---- zoom and pan: wheel with Ctrl (a trackpad pinch), two fingers, drag, and the buttons -------------

function clampPan() {
  const { W, H, k } = graphView;
  graphView.tx = clamp(graphView.tx, W - W * k, 0);
  graphView.ty = clamp(graphView.ty, H - H * k, 0);
}

function zoomAt(px, py, factor) {
  const k = clamp(graphView.k * factor, 1, ZOOM_MAX);
  const f = k / graphView.k;
  graphView.tx = px - (px - graphView.tx) * f;
  graphView.ty = py - (py - graphView.ty) * f;
  graphView.k = k;
  clampPan();
  scheduleView();
}

function panBy(dx, dy) {
  graphView.tx += dx;
  graphView.ty += dy;
  clampPan();
  scheduleView();
}

// Screen (client) coordinates to the graph's own pixels.
function toGraph(clientX, clientY) {
  const box = $("graph").getBoundingClientRect();
  return { x: ((clientX - box.left) * graphView.W) / box.width, y: ((clientY - box.top) * graphView.H) / box.height };
}

export function installGraphControls() {
  const canvas = $("graph");
  canvas.addEventListener("wheel", (event) => {
    if (!(event.ctrlKey || event.metaKey)) return; // a plain wheel scrolls the page
    event.preventDefault();
    const p = toGraph(event.clientX, event.clientY);
    zoomAt(p.x, p.y, Math.exp(-event.deltaY * 0.002));
  }, { passive: false });
  canvas.addEventListener("pointerdown", (event) => {
    graphView.pointers.set(event.pointerId, toGraph(event.clientX, event.clientY));
    graphView.moved = 0;
    // Pointer capture retargets the pointerup to the drawing: remember which dot was pressed.
    const node = event.target instanceof Element ? event.target.closest(".node") : null;
    graphView.pressed = node ? node.dataset.key : null;
    if (graphView.pointers.size === 2) graphView.pinch = null;
    try { canvas.setPointerCapture(event.pointerId); } catch { /* not ours to capture */ }
  });
  canvas.addEventListener("pointermove", (event) => {
    const before = graphView.pointers.get(event.pointerId);
    if (!before) return;
    const now = toGraph(event.clientX, event.clientY);
    if (graphView.pointers.size === 1) {
      graphView.moved += Math.abs(now.x - before.x) + Math.abs(now.y - before.y);
      panBy(now.x - before.x, now.y - before.y);
    } else if (graphView.pointers.size === 2) {
      const [p, q] = [...graphView.pointers.entries()].map(([id, at]) => (id === event.pointerId ? now : at));
      const span = Math.hypot(p.x - q.x, p.y - q.y);
      const mid = { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
      if (graphView.pinch && graphView.pinch.span > 0) {
        panBy(mid.x - graphView.pinch.mid.x, mid.y - graphView.pinch.mid.y);
        zoomAt(mid.x, mid.y, span / graphView.pinch.span);
      }
      graphView.pinch = { span, mid };
      graphView.moved += 10;
    }
    graphView.pointers.set(event.pointerId, now);
  });
  const release = (event) => {
    if (!graphView.pointers.delete(event.pointerId)) return;
    if (graphView.pointers.size < 2) graphView.pinch = null;
    if (event.type === "pointerup" && graphView.moved < 6 && graphView.pointers.size === 0) {
      const key = graphView.pressed;
      graphView.selected = key && key !== graphView.selected ? key : null;
      scheduleView();
    }
  };
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);
  const centre = () => [graphView.W / 2, graphView.H / 2];
  $("zoom-in").addEventListener("click", () => zoomAt(...centre(), 1.6));
  $("zoom-out").addEventListener("click", () => zoomAt(...centre(), 1 / 1.6));
  $("zoom-fit").addEventListener("click", () => {
    graphView.k = 1;
    graphView.tx = 0;
    graphView.ty = 0;
    scheduleView();
  });
  $("show-all").addEventListener("click", () => {
    graphView.showAll = !graphView.showAll;
    markDirty(true, false);
  });
  $("name-all").addEventListener("change", (event) => {
    graphView.nameAll = event.target.checked;
    scheduleView();
  });
  // A new width (a rotated phone, a resized window) lays the graph out again.
  let width = 0;
  new ResizeObserver((entries) => {
    const now = Math.round(entries[0].contentRect.width);
    if (now !== width) {
      width = now;
      markDirty(true, false);
    }
  }).observe(canvas.parentElement);
}
// A new run: nothing selected, the whole drawing in view.
export function resetGraphView() {
  Object.assign(graphView, { selected: null, k: 1, tx: 0, ty: 0 });
}
