// What the page knows of one run: its people (by the server's keys), proven links, photos, and the
// chains to highlight, built from the run's events whatever their shape.
import { number } from "./format.js";

export const pairOf = (a, b) => (a < b ? `${a}|${b}` : `${b}|${a}`);

function guessKey(text) {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/['’]/g, "")
    .replace(/[^\p{L}\p{N}_]+/gu, " ").trim();
}

export class RunView {
  constructor(personA, personB, cardLimit) {
    this.personA = personA;
    this.personB = personB;
    this.keys = new Map(); // display name -> key, as the server's events give them
    this.nodes = new Map(); // key -> { id, name }
    this.edges = new Map(); // "a|b" -> { source, target, confidence }
    this.fromA = []; // the partial path from A (display names), while the run works or when it gave up
    this.fromB = []; // the partial path from B
    this.path = []; // the final path, A … B
    this.final = false;
    this.photos = new Map(); // image URL -> one photo (one card), with everyone proven in it
    this.cited = new Map(); // pair -> the image URL the chain cites for it
    this.cardLimit = cardLimit;
    this.usage = null; // the latest `usage` any event carried
    this.budgets = null; // the budgets this page asked for, when it started the run (a continuation: in total)
    this.ownBudgets = null; // the run's own budgets (run_started): what a continuation gets again
    this.runtimeSpent = 0; // seconds the run's segments took (each ending's simSeconds)
    this.lastEnding = null; // the data of the ending a continuation would go on from
    this.spentTold = null; // what the server said the run spent, when it refused a continuation
    this.segment = 0; // 0: the run as started; 1, 2, …: continuations (run_continued)
    this.segmentStart = null; // the run's usage when the current continuation began
  }

  // A person's key as the server computes it (domain/names.py name_key), learnt from the events when
  // they give it; the local guess only places the two endpoints before any evidence names them.
  keyOf(name) {
    const text = String(name ?? "");
    return this.keys.get(text) || guessKey(text);
  }

  learnKey(name, key) {
    const text = String(name ?? "");
    const guess = this.keyOf(text);
    if (guess !== key && this.nodes.has(guess) && !this.nodes.has(key)) {
      const node = this.nodes.get(guess);
      this.nodes.delete(guess);
      node.id = key;
      this.nodes.set(key, node);
    }
    this.keys.set(text, key);
  }

  // The key for a (name, key?) pair as an event gives it.
  keyFor(name, key) {
    if (typeof key === "string" && key) {
      if (name !== undefined && name !== null) this.learnKey(name, key);
      return key;
    }
    return this.keyOf(name);
  }

  addNode(id, name) {
    if (!id) return;
    if (!this.nodes.has(id)) this.nodes.set(id, { id, name: String(name ?? id) });
  }

  addEdge(a, b, confidence) {
    if (!a || !b || a === b) return;
    const key = pairOf(a, b);
    const value = Number.isFinite(confidence) ? confidence : 0;
    const current = this.edges.get(key);
    if (!current || current.confidence < value) this.edges.set(key, { source: a, target: b, confidence: value });
  }

  // One photo, however the events describe it: `evidence` with one pair (from/to/confidenceA/B),
  // with everyone in it (people, links), or both; later events about the same photo add to it.
  photoFor(data) {
    const url = typeof data.imageUrl === "string" && data.imageUrl ? data.imageUrl : null;
    const id = url || `pair:${String(data.fromKey || data.from)}|${String(data.toKey || data.to)}`;
    let photo = this.photos.get(id);
    if (!photo) {
      photo = {
        id, imageUrl: url, pageUrl: "", title: "", event: undefined, order: this.photos.size,
        people: new Map(), links: new Map(), expanded: false, element: null, thumb: null, dirty: true,
      };
      this.photos.set(id, photo);
    }
    if (!photo.pageUrl && typeof data.pageUrl === "string") photo.pageUrl = data.pageUrl;
    if (!photo.title && typeof data.title === "string") photo.title = data.title;
    if (data.earlierRun && typeof data.provenAt === "string") photo.provenAt = data.provenAt;
    // `event`: a string, or null when the photo's caption names none; absent from older servers' events.
    if (typeof photo.event !== "string" && (typeof data.event === "string" || data.event === null)) photo.event = data.event;
    photo.dirty = true;
    return photo;
  }

  notePerson(photo, key, name, confidence) {
    if (!key) return;
    const value = number(confidence);
    const known = photo.people.get(key);
    if (!known) {
      photo.people.set(key, { key, name: String(name ?? this.nodes.get(key)?.name ?? key), confidence: value });
    } else if (value !== null && (known.confidence === null || value > known.confidence)) {
      known.confidence = value;
    }
  }

  noteLink(photo, a, b, nameA, nameB, confidence) {
    if (!a || !b || a === b) return;
    this.notePerson(photo, a, nameA, null);
    this.notePerson(photo, b, nameB, null);
    this.addNode(a, photo.people.get(a).name);
    this.addNode(b, photo.people.get(b).name);
    let value = number(confidence);
    if (value === null) {
      const ca = photo.people.get(a).confidence;
      const cb = photo.people.get(b).confidence;
      value = ca !== null && cb !== null ? Math.min(ca, cb) : null;
    }
    const pair = pairOf(a, b);
    const known = photo.links.get(pair);
    if (!known || (value !== null && (known.confidence === null || value > known.confidence))) {
      photo.links.set(pair, { a, b, confidence: value });
    }
    this.addEdge(a, b, value ?? 0);
  }

  addEvidence(data) {
    const photo = this.photoFor(data);
    for (const p of Array.isArray(data.people) ? data.people : []) {
      if (!p || typeof p !== "object") continue;
      this.notePerson(photo, this.keyFor(p.name, p.key), p.name ?? p.key, p.confidence);
    }
    if (data.from !== undefined && data.to !== undefined) {
      const a = this.keyFor(data.from, data.fromKey);
      const b = this.keyFor(data.to, data.toKey);
      this.notePerson(photo, a, data.from, data.confidenceA);
      this.notePerson(photo, b, data.to, data.confidenceB);
      this.noteLink(photo, a, b, data.from, data.to, data.confidence);
    }
    for (const link of Array.isArray(data.links) ? data.links : []) {
      if (!link || typeof link !== "object") continue;
      const a = this.keyFor(link.from, link.fromKey);
      const b = this.keyFor(link.to, link.toKey);
      this.noteLink(photo, a, b, link.from, link.to, link.confidence);
    }
  }

  // A path_update names the chain so far from one side; newer servers add its links with their photos.
  addPathUpdate(data) {
    const names = Array.isArray(data.path) ? data.path.map(String) : [];
    const fromB = data.side === "B" || (names.length > 0 && this.keyOf(names[0]) === this.keyOf(this.personB) &&
      this.keyOf(names[0]) !== this.keyOf(this.personA));
    if (fromB) this.fromB = names; else this.fromA = names;
    for (const edge of Array.isArray(data.edges) ? data.edges : []) {
      if (!edge || typeof edge !== "object") continue;
      const a = this.keyFor(edge.from, edge.fromKey);
      const b = this.keyFor(edge.to, edge.toKey);
      if (typeof edge.imageUrl === "string" && edge.imageUrl) {
        this.noteLink(this.photoFor(edge), a, b, edge.from, edge.to, edge.confidence);
        this.cite(a, b, edge.imageUrl);
      } else {
        this.addNode(a, edge.from);
        this.addNode(b, edge.to);
        this.addEdge(a, b, number(edge.confidence) ?? 0);
      }
    }
  }

  // The partial chains an ending reports (partialPath from A, partialPathFromB), as "A → … → X" each.
  addPartialPaths(data) {
    const reached = [];
    for (const [field, side] of [["partialPath", null], ["partialPathFromB", "B"]]) {
      const names = Array.isArray(data[field]) ? data[field].map(String) : [];
      if (names.length < 2) continue;
      const fromB = side === "B" || this.keyOf(names[0]) === this.keyOf(this.personB);
      if (fromB) this.fromB = names; else this.fromA = names;
      reached.push(names.join(" → "));
    }
    return reached;
  }

  // The chains to highlight, as lists of keys: the final path, or the partial ones from each side.
  highlighted() {
    const lists = this.final ? [this.path] : [this.fromA, this.fromB];
    return lists.filter((names) => names.length > 0).map((names) => names.map((name) => this.keyOf(name)));
  }

  highlightedPairs() {
    const pairs = new Map(); // pair -> position along its chain (for ordering cards)
    for (const keys of this.highlighted()) {
      for (let i = 1; i < keys.length; i += 1) pairs.set(pairOf(keys[i - 1], keys[i]), i);
    }
    return pairs;
  }

  // Which photo a link of the chain cites, when the server said (final edges, newer path_updates).
  cite(a, b, imageUrl) {
    if (typeof imageUrl === "string" && imageUrl) this.cited.set(pairOf(a, b), imageUrl);
  }

  // The run's verified graph as the server holds it at the end (it may know links no card showed).
  mergeGraph(graph) {
    if (!graph || !Array.isArray(graph.nodes)) return;
    for (const node of graph.nodes) {
      if (!node || typeof node.id !== "string") continue;
      this.learnKey(node.name, node.id);
      this.addNode(node.id, node.name);
    }
    for (const edge of Array.isArray(graph.edges) ? graph.edges : []) {
      if (edge && this.nodes.has(edge.source) && this.nodes.has(edge.target)) {
        this.addEdge(edge.source, edge.target, number(edge.confidence) ?? 0);
      }
    }
  }
}
