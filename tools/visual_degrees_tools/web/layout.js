// Who is drawn, and where, in the panel's own pixels: A on the left, B on the right, the chain on the
// middle line (kept clear of everyone else), and everyone else in bands by distance from A and from B
// (two links from A and three from B: 2/5 of the way across), each band a grid over the whole height,
// so nothing piles up. By default only the people on some route between the two sides are drawn
// (`onRoutes`); the others are counted. Pure: the drawing is graph.js's.

import { clamp } from "./format.js";

const SVG_MARGIN = 20;

function distances(start, neighbours) {
  const dist = new Map();
  if (!neighbours.has(start)) return dist;
  dist.set(start, 0);
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const next = dist.get(queue[i]) + 1;
    for (const m of neighbours.get(queue[i])) {
      if (!dist.has(m)) { dist.set(m, next); queue.push(m); }
    }
  }
  return dist;
}

// The people on some route between the two sides: on a path from A to B in the verified graph that
// visits nobody twice, or on the chain. A run that has not joined its sides yet may cross the gap
// between the ends of its two chains so far (the link it is looking for). Someone seen only in photos
// with one person of a side (and whoever was seen only with them) is on no route: drawn beside the
// others, they would suggest a closeness that is not there.
export function onRoutes(ids, edges, a, b, chains, final) {
  const neighbours = new Map(ids.map((id) => [id, new Set()]));
  const link = (p, q) => {
    if (p === q || !neighbours.has(p) || !neighbours.has(q)) return;
    neighbours.get(p).add(q);
    neighbours.get(q).add(p);
  };
  for (const e of edges) link(e.source, e.target);
  const on = new Set(chains.flat().filter((id) => neighbours.has(id)));
  if (!neighbours.has(a) || !neighbours.has(b)) return on;
  if (!final) {
    const end = (side) => chains.find((keys) => keys[0] === side)?.at(-1) ?? side;
    link(end(a), end(b));
  }
  // A simple path from A to B closes a cycle with a link A–B: everyone on one shares a block with it.
  link(a, b);
  for (const id of blockWith(neighbours, a, b)) on.add(id);
  return on;
}

// The biconnected block holding both `a` and `b` (neighbours must link them), by Tarjan's algorithm
// without recursion: links are stacked as the depth-first search walks them, and a block is popped
// when a person's subtree cannot reach above its parent.
function blockWith(neighbours, a, b) {
  const order = new Map([[a, 0]]);
  const low = new Map([[a, 0]]);
  const walked = []; // links [from, to] not yet assigned to a block
  const stack = [{ v: a, parent: null, next: [...neighbours.get(a)] }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.next.length) {
      const w = top.next.pop();
      if (!order.has(w)) {
        order.set(w, order.size);
        low.set(w, order.get(w));
        walked.push([top.v, w]);
        stack.push({ v: w, parent: top.v, next: [...neighbours.get(w)] });
      } else if (w !== top.parent && order.get(w) < order.get(top.v)) {
        walked.push([top.v, w]);
        low.set(top.v, Math.min(low.get(top.v), order.get(w)));
      }
      continue;
    }
    stack.pop();
    if (!stack.length) break;
    const u = stack[stack.length - 1].v;
    low.set(u, Math.min(low.get(u), low.get(top.v)));
    if (low.get(top.v) >= order.get(u)) {
      const block = new Set();
      let e;
      do {
        e = walked.pop();
        block.add(e[0]);
        block.add(e[1]);
      } while (e[0] !== u || e[1] !== top.v);
      if (block.has(a) && block.has(b)) return block;
    }
  }
  return new Set([a, b]);
}

// `drawing`: { a, b, nodes, edges, chains, final, showAll }; everyone when showAll, else those on a route.
export function layout(W, H, drawing) {
  const { a, b, chains, final } = drawing;
  const everyone = [...drawing.nodes.values()];
  const links = [...drawing.edges.values()].filter((e) => drawing.nodes.has(e.source) && drawing.nodes.has(e.target));
  const routes = onRoutes(everyone.map((n) => n.id), links, a, b, chains, final);
  const shown = (id) => drawing.showAll || routes.has(id);
  const nodes = everyone.filter((n) => shown(n.id));
  const edges = links.filter((e) => shown(e.source) && shown(e.target));
  const off = everyone.filter((n) => !routes.has(n.id)).length;
  const neighbours = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) {
    neighbours.get(e.source).push(e.target);
    neighbours.get(e.target).push(e.source);
  }
  const dA = distances(a, neighbours);
  const dB = distances(b, neighbours);
  const onPath = new Set(chains.flat());
  const finalAt = final && chains.length ? new Map(chains[0].map((k, i) => [k, i])) : new Map();
  const hops = finalAt.size - 1;
  let deepestA = 1;
  let deepestB = 1;
  for (const d of dA.values()) deepestA = Math.max(deepestA, d);
  for (const d of dB.values()) deepestB = Math.max(deepestB, d);

  // Where between A (0) and B (1) each person belongs.
  const across = (id) => {
    if (hops > 0 && finalAt.has(id)) return finalAt.get(id) / hops;
    const da = dA.get(id);
    const db = dB.get(id);
    if (da !== undefined && db !== undefined) return da / (da + db);
    if (da !== undefined) return da / (2 * (deepestA + 1));
    if (db !== undefined) return 1 - db / (2 * (deepestB + 1));
    return 0.5;
  };
  const role = (id) => {
    if (id === a || id === b) return "endpoint";
    if (onPath.has(id)) return "path";
    if (dA.get(id) === 1 || dB.get(id) === 1) return "frontier";
    return "other";
  };

  const bands = new Map();
  for (const n of nodes) {
    if (n.id === a || n.id === b) continue;
    const f = across(n.id);
    const apart = !dA.has(n.id) && !dB.has(n.id);
    const id = `${apart ? "x" : ""}${f.toFixed(4)}`;
    if (!bands.has(id)) bands.set(id, { f, apart, nodes: [] });
    bands.get(id).nodes.push(n);
  }
  const ordered = [...bands.values()].sort((p, q) => p.f - q.f || Number(p.apart) - Number(q.apart));

  const mx = W < 640 ? 18 : 30;
  const top = SVG_MARGIN + 6;
  const bottom = H - SVG_MARGIN - 6;
  const corridor = W < 640 ? 30 : 34; // kept clear above and below the chain's line
  const pos = new Map();
  pos.set(a, { x: mx, y: H / 2 });
  pos.set(b, { x: W - mx, y: H / 2 });
  const left = mx + (W < 640 ? 22 : 46);
  const right = W - left;
  const weight = (band) => Math.sqrt(band.nodes.length) + 0.8 +
    (band.nodes.some((n) => role(n.id) !== "other") ? 0.8 : 0);
  const total = ordered.reduce((sum, band) => sum + weight(band), 0) || 1;
  let x = left;
  for (const band of ordered) {
    const width = ((right - left) * weight(band)) / total;
    band.x0 = x;
    band.x1 = x + width;
    x += width;
  }
  // Spread the final chain: each of its people moves most of the way to even spacing, and the bands
  // between them stretch or shrink with it (a monotone warp of x), so no two hops bunch up.
  if (hops > 1) {
    const from = [mx];
    const to = [mx];
    for (let i = 1; i < hops; i += 1) {
      const band = ordered.find((bd) => bd.nodes.some((n) => finalAt.get(n.id) === i));
      if (!band) continue;
      const centre = (band.x0 + band.x1) / 2;
      if (centre <= from[from.length - 1]) continue;
      from.push(centre);
      to.push(0.1 * centre + 0.9 * (mx + ((W - 2 * mx) * i) / hops));
      band.chainX = to[to.length - 1];
    }
    from.push(W - mx);
    to.push(W - mx);
    const warp = (v) => {
      let i = 1;
      while (i < from.length - 1 && v > from[i]) i += 1;
      const t = (v - from[i - 1]) / (from[i] - from[i - 1] || 1);
      return to[i - 1] + t * (to[i] - to[i - 1]);
    };
    for (const band of ordered) {
      band.x0 = warp(band.x0);
      band.x1 = warp(band.x1);
    }
  }
  // A band takes the width its people need and no more, as near its own place between A and B as its
  // share of the width allows: with few people drawn, one link from A is not halfway to B.
  const cell = W < 640 ? 30 : 40; // the grid's spacing, a column's room for its labels twice that
  const rowsFit = Math.max(1, Math.floor((bottom - top - 2 * corridor) / cell));
  for (const band of ordered) {
    const want = Math.ceil(band.nodes.length / rowsFit) * cell * 2;
    if (want >= band.x1 - band.x0) continue;
    const x0 = clamp((band.chainX ?? left + band.f * (right - left)) - want / 2, band.x0, band.x1 - want);
    band.x0 = x0;
    band.x1 = x0 + want;
  }

  const meanY = (id) => {
    let sum = 0;
    let count = 0;
    for (const m of neighbours.get(id)) {
      const p = pos.get(m);
      if (p) { sum += p.y; count += 1; }
    }
    return count ? sum / count : H / 2;
  };
  const placeBand = (band) => {
    const n = band.nodes.length;
    const width = band.x1 - band.x0;
    const height = bottom - top - 2 * corridor;
    let cols = Math.max(1, Math.round(Math.sqrt((n * width) / height)));
    cols = Math.min(cols, n, Math.max(1, Math.floor(width / 12)));
    const rows = Math.ceil(n / cols);
    const cw = width / cols;
    const rh = height / rows;
    // Rows run over the height less the corridor; the lower half is shifted below it.
    const lift = (y) => (y < H / 2 - corridor ? y : y + 2 * corridor);
    const cells = [];
    for (let c = 0; c < cols; c += 1) {
      const stagger = rows > 1 && cols > 1 ? (c % 2 ? 0.22 : -0.22) * rh : 0;
      for (let r = 0; r < rows; r += 1) {
        cells.push({ x: band.x0 + cw * (c + 0.5), y: lift(top + rh * (r + 0.5) + stagger) });
      }
    }
    const chain = band.nodes.filter((m) => onPath.has(m.id));
    const rest = band.nodes.filter((m) => !onPath.has(m.id));
    const centre = (band.x0 + band.x1) / 2;
    for (const m of chain) {
      let best = 0;
      for (let i = 1; i < cells.length; i += 1) {
        const d = (p) => Math.abs(p.x - centre) + Math.abs(p.y - H / 2) * 0.01;
        if (d(cells[i]) < d(cells[best])) best = i;
      }
      const cell = cells.splice(best, 1)[0];
      pos.set(m.id, { x: band.chainX ?? cell.x, y: H / 2 });
    }
    rest.sort((p, q) => meanY(p.id) - meanY(q.id) || p.name.localeCompare(q.name));
    cells.sort((p, q) => p.y - q.y || p.x - q.x);
    rest.forEach((m, i) => {
      const cell = cells[Math.floor((i * cells.length) / rest.length)];
      pos.set(m.id, { x: cell.x, y: cell.y });
    });
  };
  // Left to right, then right to left with both sides placed: fewer crossings.
  for (const band of ordered) placeBand(band);
  for (const band of [...ordered].reverse()) placeBand(band);

  const degree = (id) => neighbours.get(id).length;
  return {
    nodes: nodes.map((n) => ({
      id: n.id, name: n.name, role: role(n.id), x: pos.get(n.id).x, y: pos.get(n.id).y, degree: degree(n.id),
      nearA: dA.get(n.id) === 1, nearB: dB.get(n.id) === 1, offRoute: !routes.has(n.id),
    })),
    edges,
    a, b,
    offRoute: off, // people seen on no route between the sides (drawn only when showAll)
  };
}
