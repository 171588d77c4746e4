// Visual Degrees: watch a run live over the WebSocket protocol (lambdas/visual_degrees/protocol.py).
// Works against the local server (`visual-degrees serve`) and the deployed API alike.
// Every piece of data is rendered as text (textContent, attributes): never as markup.
"use strict";

(() => {
  // ---- photos: the one place sandbox URLs are mapped -------------------------------------------
  // Sandbox evidence names a host that can never resolve; the local server renders those photos
  // by id under /photos/ (local/http_static.py). Live evidence URLs are used as they are.
  const SANDBOX_PHOTOS = "https://sandbox.visual-degrees.invalid/photos/";

  function photoUrl(url) {
    if (typeof url !== "string") return null;
    if (url.startsWith(SANDBOX_PHOTOS)) return "/photos/" + url.slice(SANDBOX_PHOTOS.length);
    return safeWebUrl(url);
  }

  function safeWebUrl(url) {
    try {
      const parsed = new URL(url, location.href);
      return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
    } catch {
      return null;
    }
  }

  // ---- small DOM helpers (text only) -----------------------------------------------------------
  const $ = (id) => document.getElementById(id);
  const SVG_NS = "http://www.w3.org/2000/svg";

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    return node;
  }

  const pct = (value) => `${Number(value).toFixed(1)}%`;

  // ---- settings and the run being watched --------------------------------------------------------
  // The API URL persists; the token and the run (id + run token) live only as long as this tab.
  const settings = {
    get url() { return localStorage.getItem("vd.wsUrl") || ""; },
    get token() { return sessionStorage.getItem("vd.apiToken") || ""; },
    save(url, token) {
      if (url) localStorage.setItem("vd.wsUrl", url); else localStorage.removeItem("vd.wsUrl");
      if (token) sessionStorage.setItem("vd.apiToken", token); else sessionStorage.removeItem("vd.apiToken");
    },
  };

  function defaultWsUrl() {
    if (!location.host) return "";
    return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
  }

  function savedRun() {
    try {
      const run = JSON.parse(sessionStorage.getItem("vd.run") || "null");
      return run && typeof run.runId === "string" && typeof run.runToken === "string" ? run : null;
    } catch {
      return null;
    }
  }

  function saveRun(run) {
    if (run) sessionStorage.setItem("vd.run", JSON.stringify({ runId: run.runId, runToken: run.runToken }));
    else sessionStorage.removeItem("vd.run");
  }

  // ---- the connection: reconnects by itself and resumes the run ----------------------------------
  class Connection {
    constructor(handlers) {
      this.handlers = handlers;
      this.socket = null;
      this.attempt = 0;
      this.timer = null;
    }

    get open() {
      return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
    }

    connect() {
      clearTimeout(this.timer);
      const base = settings.url || defaultWsUrl();
      if (!base) {
        this.handlers.state("offline", "set the WebSocket URL in the connection settings");
        return;
      }
      let url;
      try {
        url = new URL(base);
        if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new Error("not a WebSocket URL");
      } catch {
        this.handlers.state("offline", "the WebSocket URL in the settings is not valid");
        return;
      }
      if (settings.token) url.searchParams.set("token", settings.token);
      const socket = new WebSocket(url.href);
      this.socket = socket;
      this.handlers.state("connecting", this.attempt ? "reconnecting…" : "connecting…");
      socket.onopen = () => {
        if (socket !== this.socket) return;
        this.attempt = 0;
        this.handlers.state("open", "connected");
        this.handlers.opened();
      };
      socket.onmessage = (message) => {
        if (socket !== this.socket) return;
        let data;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        if (data && typeof data === "object") this.handlers.message(data);
      };
      socket.onclose = () => {
        if (socket !== this.socket) return;
        this.socket = null;
        const delay = Math.min(10000, 500 * 2 ** this.attempt) + Math.floor(Math.random() * 250);
        this.attempt += 1;
        this.handlers.state("closed", `disconnected; retrying in ${Math.round(delay / 1000)} s`);
        this.timer = setTimeout(() => this.connect(), delay);
      };
    }

    reconnect() {
      const old = this.socket;
      this.socket = null;
      this.attempt = 0;
      if (old) old.close(1000, "settings changed");
      this.connect();
    }

    send(message) {
      if (!this.open) return false;
      this.socket.send(JSON.stringify(message));
      return true;
    }
  }

  // ---- what the page shows about the current run -------------------------------------------------
  const TERMINAL = new Set(["final", "no_path", "cancelled", "error"]);

  let run = null; // { runId, runToken, lastSeq, finished, resyncing }
  let view = null;

  function freshView(personA, personB) {
    return {
      personA, personB,
      keys: new Map(), // display name -> key, as the server's events give them
      nodes: new Map(), // key -> { id, name, x, y }
      edges: new Map(), // "a|b" -> { source, target, confidence }
      path: [], // display names, A … (partial or final)
      final: false,
      evidence: 0,
    };
  }

  function resetView(personA, personB) {
    view = freshView(personA, personB);
    $("cards").replaceChildren();
    $("path").replaceChildren();
    $("result").hidden = true;
    $("error").hidden = true;
    $("evidence-count").textContent = "";
    drawGraph();
  }

  function setStatus(text) {
    $("status").textContent = text;
  }

  function showError(text) {
    const box = $("error");
    box.textContent = text;
    box.hidden = false;
  }

  function setRunning(running) {
    $("cancel").disabled = !running;
  }

  // ---- protocol handling ----------------------------------------------------------------------------
  const connection = new Connection({
    state(state, text) {
      const badge = $("connection");
      badge.dataset.state = state;
      badge.textContent = text;
    },
    opened() {
      resubscribe();
    },
    message(msg) {
      if (typeof msg.seq === "number") onEvent(msg);
      else onReply(msg);
    },
  });

  // Follow the run from the first event not yet shown; events are ignored until `subscribed`.
  function resubscribe() {
    if (!run || run.finished) return;
    run.resyncing = true;
    connection.send({ action: "subscribe", runId: run.runId, fromSeq: run.lastSeq + 1, runToken: run.runToken });
  }

  function onReply(msg) {
    switch (msg.type) {
      case "runAccepted":
        run = { runId: msg.runId, runToken: msg.runToken, lastSeq: 0, finished: false, resyncing: false };
        saveRun(run);
        setRunning(true);
        setStatus("Run accepted; waiting for the first step…");
        break;
      case "subscribed":
        if (run && msg.runId === run.runId) {
          run.resyncing = false;
          if (run.lastSeq > 0) setStatus("Reconnected; catching up on what was missed…");
        }
        break;
      case "cancelRequested":
        setStatus("Cancelling at the next step…");
        break;
      case "error":
        if (msg.code === "run_not_found" && run && (msg.action === "subscribe" || !msg.action)) {
          // The run is gone (expired, or another server): stop trying to resume it.
          run.finished = true;
          saveRun(null);
          setRunning(false);
        } else if (run && run.resyncing && !run.finished) {
          // The resuming subscribe was refused for now (rate limited, busy): ask again shortly.
          setTimeout(resubscribe, 1000);
        }
        showError(`${msg.message || "Something went wrong"} (${msg.code || "error"})`);
        break;
      default:
        break;
    }
  }

  function onEvent(ev) {
    if (!run || ev.runId !== run.runId || run.resyncing) return;
    if (ev.seq <= run.lastSeq) return; // already shown (replay overlap)
    if (ev.seq > run.lastSeq + 1) {
      resubscribe(); // a gap: ask for everything from the first missing event (this one included)
      return;
    }
    run.lastSeq = ev.seq;
    const data = ev.data || {};
    switch (ev.type) {
      case "run_started":
        view.personA = data.personA;
        view.personB = data.personB;
        addNode(keyOf(data.personA), data.personA);
        addNode(keyOf(data.personB), data.personB);
        setStatus(`Looking for a chain from ${data.personA} to ${data.personB}…`);
        break;
      case "status":
        setStatus(data.message || "");
        break;
      case "evidence":
        addEvidence(data);
        break;
      case "path_update":
        view.path = Array.isArray(data.path) ? data.path.slice() : [];
        setStatus(`So far: ${view.path.join(" → ")}`);
        break;
      case "final":
        showFinal(data);
        break;
      case "no_path":
        showEnd("No chain found", data.message || "No path within the limits.", data, "no-path");
        break;
      case "cancelled":
        showEnd("Cancelled", "The run was stopped at your request.", data, "cancelled");
        break;
      case "error":
        showEnd("The run failed", `${data.message || "unknown error"} (${data.code || "error"})`, data, "failed");
        break;
      default:
        break;
    }
    if (TERMINAL.has(ev.type)) {
      run.finished = true;
      setRunning(false);
    }
    scheduleGraph();
  }

  // ---- evidence cards -----------------------------------------------------------------------------------
  // A person's key as the server computes it (domain/names.py name_key), learnt from evidence when
  // it arrives; the local guess only places the two endpoints before any evidence names them.
  function keyOf(name) {
    const text = String(name || "");
    return view.keys.get(text) || guessKey(text);
  }

  function guessKey(text) {
    return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/['’]/g, "")
      .replace(/[^\p{L}\p{N}_]+/gu, " ").trim();
  }

  function learnKey(name, key) {
    const text = String(name || "");
    const guess = keyOf(text);
    if (guess !== key && view.nodes.has(guess) && !view.nodes.has(key)) {
      const node = view.nodes.get(guess);
      view.nodes.delete(guess);
      node.id = key;
      view.nodes.set(key, node);
    }
    view.keys.set(text, key);
  }

  function addNode(id, name) {
    if (!view.nodes.has(id)) view.nodes.set(id, { id, name: String(name) });
  }

  function addEdge(a, b, confidence) {
    const key = a < b ? `${a}|${b}` : `${b}|${a}`;
    const current = view.edges.get(key);
    if (!current || current.confidence < confidence) view.edges.set(key, { source: a, target: b, confidence });
  }

  function addEvidence(data) {
    if (data.fromKey) learnKey(data.from, data.fromKey);
    if (data.toKey) learnKey(data.to, data.toKey);
    const a = keyOf(data.from);
    const b = keyOf(data.to);
    addNode(a, data.from);
    addNode(b, data.to);
    addEdge(a, b, Number(data.confidence));
    view.evidence += 1;
    $("evidence-count").textContent = `(${view.evidence})`;
    $("cards").prepend(card(data, a, b));
  }

  function card(data, keyA, keyB) {
    const article = el("article", "card");
    article.dataset.pair = keyA < keyB ? `${keyA}|${keyB}` : `${keyB}|${keyA}`;
    const image = photoUrl(data.imageUrl);
    if (image) {
      const img = el("img");
      img.src = image;
      img.alt = data.title ? `Photo: ${data.title}` : `Photo of ${data.from} and ${data.to}`;
      img.loading = "lazy";
      img.referrerPolicy = "no-referrer";
      article.append(img);
    }
    const body = el("div", "card-body");
    body.append(person(data.from, data.confidenceA), person(data.to, data.confidenceB));
    if (data.title) body.append(el("p", "caption", data.title));
    const source = photoUrl(data.pageUrl) || image;
    if (source) {
      const link = el("a", "source", "source");
      link.href = source;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      body.append(link);
    }
    article.append(body);
    return article;
  }

  function person(name, confidence) {
    const row = el("p", "person");
    row.append(el("span", "name", name), el("span", "confidence", pct(confidence)));
    const bar = el("span", "bar");
    const fill = el("span", "fill");
    fill.style.width = `${Math.max(0, Math.min(100, Number(confidence)))}%`;
    bar.append(fill);
    row.append(bar);
    return row;
  }

  // ---- the end of a run ----------------------------------------------------------------------------------
  // The run's verified graph as the server holds it at the end (it may know links no card showed).
  function mergeGraph(graph) {
    if (!graph || !Array.isArray(graph.nodes)) return;
    for (const node of graph.nodes) {
      learnKey(node.name, node.id);
      addNode(node.id, node.name);
    }
    for (const edge of graph.edges || []) addEdge(edge.source, edge.target, Number(edge.confidence));
  }

  function showFinal(data) {
    view.final = true;
    view.path = Array.isArray(data.path) ? data.path.slice() : [];
    mergeGraph(data.graph);
    const result = $("result");
    result.dataset.outcome = "path";
    $("result-title").textContent = `${view.path.join(" → ")}`;
    $("result-message").textContent = `${data.hops} ${data.hops === 1 ? "hop" : "hops"}, every one proven by a photo of both people.`;
    const list = $("path");
    list.replaceChildren();
    for (const edge of data.edges || []) {
      const ev = edge.evidence || {};
      const item = el("li", "hop");
      item.append(card({ ...ev, from: edge.from, to: edge.to }, keyOf(edge.from), keyOf(edge.to)));
      item.prepend(el("p", "hop-title", `${edge.from} — ${edge.to} · ${pct(edge.confidence)}`));
      list.append(item);
    }
    $("result-summary").textContent =
      `Bottleneck confidence ${pct(data.bottleneckConfidence)} · cumulative ${(Number(data.cumulativeConfidence) * 100).toFixed(1)}%` +
      usage(data.usage);
    result.hidden = false;
    addMissingPathCards(data.edges || []);
    markPathCards();
    setStatus(`Found a chain of ${data.hops} ${data.hops === 1 ? "hop" : "hops"}.`);
  }

  function showEnd(title, message, data, outcome) {
    const result = $("result");
    result.dataset.outcome = outcome;
    $("result-title").textContent = title;
    mergeGraph(data.graph);
    const limit = typeof data.maxHops === "number" ? ` (max ${data.maxHops} hops)` : "";
    const reason = data.reason ? ` Stopped by: ${String(data.reason).replace(/_/g, " ")}${limit}.` : "";
    $("result-message").textContent = message + reason;
    const list = $("path");
    list.replaceChildren();
    const partial = Array.isArray(data.partialPath) ? data.partialPath : [];
    if (partial.length > 1) view.path = partial.slice();
    $("result-summary").textContent =
      (partial.length > 1 ? `Got as far as: ${partial.join(" → ")}.` : "") + usage(data.usage);
    result.hidden = false;
    setStatus(title + ".");
  }

  function usage(u) {
    if (!u) return "";
    const cost = typeof u.costUsd === "number" ? ` · $${u.costUsd.toFixed(4)}` : "";
    return ` · spent ${u.searches} searches, ${u.recognitions} recognitions, ${u.llmCalls} LLM calls${cost}`;
  }

  // A link can be proven by a photo the run held from an earlier step (or an earlier run) without an
  // `evidence` event of its own: its card joins the others, so every link of the path has one.
  function addMissingPathCards(edges) {
    const shown = new Set([...$("cards").children].map((c) => c.dataset.pair));
    for (const edge of edges) {
      const a = keyOf(edge.from);
      const b = keyOf(edge.to);
      const pair = a < b ? `${a}|${b}` : `${b}|${a}`;
      if (shown.has(pair)) continue;
      shown.add(pair);
      $("cards").prepend(card({ ...(edge.evidence || {}), from: edge.from, to: edge.to }, a, b));
    }
    $("evidence-count").textContent = `(${$("cards").children.length})`;
  }

  function markPathCards() {
    const pairs = new Set();
    const keys = view.path.map(keyOf);
    for (let i = 1; i < keys.length; i += 1) {
      pairs.add(keys[i - 1] < keys[i] ? `${keys[i - 1]}|${keys[i]}` : `${keys[i]}|${keys[i - 1]}`);
    }
    for (const c of $("cards").children) c.classList.toggle("on-path", pairs.has(c.dataset.pair));
  }

  // ---- the graph: a small force layout, drawn as plain SVG ----------------------------------------
  const WIDTH = 800;
  const HEIGHT = 440;
  const MARGIN = 40;
  let graphPending = false;

  function scheduleGraph() {
    if (graphPending) return;
    graphPending = true;
    requestAnimationFrame(() => {
      graphPending = false;
      drawGraph();
    });
  }

  function hash(text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    return (h >>> 0) / 4294967296;
  }

  function layout() {
    const nodes = [...view.nodes.values()];
    const a = keyOf(view.personA);
    const b = keyOf(view.personB);
    const edges = [...view.edges.values()].filter((e) => view.nodes.has(e.source) && view.nodes.has(e.target));
    const neighbours = new Map(nodes.map((n) => [n.id, []]));
    for (const e of edges) {
      neighbours.get(e.source).push(e.target);
      neighbours.get(e.target).push(e.source);
    }
    for (const n of nodes) {
      if (n.x !== undefined) continue;
      const placed = neighbours.get(n.id).map((id) => view.nodes.get(id)).find((m) => m.x !== undefined);
      const angle = hash(n.id) * 2 * Math.PI;
      const cx = placed ? placed.x : WIDTH / 2;
      const cy = placed ? placed.y : HEIGHT / 2;
      n.x = cx + Math.cos(angle) * 60;
      n.y = cy + Math.sin(angle) * 60;
    }
    const pinned = (n) => n.id === a || n.id === b;
    for (const n of nodes) {
      if (n.id === a) { n.x = MARGIN * 2; n.y = HEIGHT / 2; }
      if (n.id === b) { n.x = WIDTH - MARGIN * 2; n.y = HEIGHT / 2; }
    }
    const rounds = nodes.length > 80 ? 60 : 140;
    for (let round = 0; round < rounds; round += 1) {
      const step = 1 - round / rounds;
      const force = new Map(nodes.map((n) => [n.id, { x: 0, y: 0 }]));
      for (let i = 0; i < nodes.length; i += 1) {
        for (let j = i + 1; j < nodes.length; j += 1) {
          const p = nodes[i];
          const q = nodes[j];
          let dx = p.x - q.x;
          let dy = p.y - q.y;
          let d2 = dx * dx + dy * dy;
          if (d2 < 1) { dx = hash(p.id + q.id) - 0.5; dy = 0.5 - hash(q.id + p.id); d2 = 1; }
          const push = 9000 / d2;
          const d = Math.sqrt(d2);
          force.get(p.id).x += (dx / d) * push; force.get(p.id).y += (dy / d) * push;
          force.get(q.id).x -= (dx / d) * push; force.get(q.id).y -= (dy / d) * push;
        }
      }
      for (const e of edges) {
        const p = view.nodes.get(e.source);
        const q = view.nodes.get(e.target);
        const dx = q.x - p.x;
        const dy = q.y - p.y;
        const d = Math.max(1, Math.sqrt(dx * dx + dy * dy));
        const pull = (d - 120) * 0.04;
        force.get(p.id).x += (dx / d) * pull; force.get(p.id).y += (dy / d) * pull;
        force.get(q.id).x -= (dx / d) * pull; force.get(q.id).y -= (dy / d) * pull;
      }
      for (const n of nodes) {
        if (pinned(n)) continue;
        const f = force.get(n.id);
        f.x += (WIDTH / 2 - n.x) * 0.004;
        f.y += (HEIGHT / 2 - n.y) * 0.006;
        const limit = 12 * step + 0.5;
        n.x += Math.max(-limit, Math.min(limit, f.x));
        n.y += Math.max(-limit, Math.min(limit, f.y));
        n.x = Math.max(MARGIN, Math.min(WIDTH - MARGIN, n.x));
        n.y = Math.max(MARGIN, Math.min(HEIGHT - MARGIN, n.y));
      }
    }
    return { nodes, edges, a, b };
  }

  function drawGraph() {
    const canvas = $("graph");
    canvas.replaceChildren();
    if (!view || view.nodes.size === 0) {
      $("graph-count").textContent = "";
      return;
    }
    const { nodes, edges, a, b } = layout();
    const pathKeys = view.path.map(keyOf);
    const onPath = new Set(pathKeys);
    const pathEdges = new Set();
    for (let i = 1; i < pathKeys.length; i += 1) {
      pathEdges.add(`${pathKeys[i - 1]}|${pathKeys[i]}`);
      pathEdges.add(`${pathKeys[i]}|${pathKeys[i - 1]}`);
    }
    const edgeLayer = svg("g", { class: "edges" });
    const highlighted = [];
    for (const e of edges) {
      const p = view.nodes.get(e.source);
      const q = view.nodes.get(e.target);
      const line = svg("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: "edge" });
      const title = svg("title");
      title.textContent = `${p.name} — ${q.name}: ${pct(e.confidence)}`;
      line.append(title);
      if (pathEdges.has(`${e.source}|${e.target}`)) {
        line.classList.add(view.final ? "on-path" : "partial-path");
        highlighted.push(line);
      } else {
        edgeLayer.append(line);
      }
    }
    edgeLayer.append(...highlighted); // drawn last, on top
    const nodeLayer = svg("g", { class: "nodes" });
    for (const n of nodes) {
      const group = svg("g", { class: "node", transform: `translate(${n.x.toFixed(1)},${n.y.toFixed(1)})` });
      if (n.id === a || n.id === b) group.classList.add("endpoint");
      if (onPath.has(n.id)) group.classList.add(view.final ? "on-path" : "partial-path");
      group.append(svg("circle", { r: n.id === a || n.id === b ? 10 : onPath.has(n.id) ? 8 : 6 }));
      // Labels near the sides grow inwards, so long names stay inside the picture.
      const anchor = n.x < 170 ? "start" : n.x > WIDTH - 170 ? "end" : "middle";
      const shift = anchor === "start" ? -12 : anchor === "end" ? 12 : 0;
      const label = svg("text", { x: shift, y: -13, "text-anchor": anchor });
      label.textContent = n.name;
      group.append(label);
      nodeLayer.append(group);
    }
    canvas.append(edgeLayer, nodeLayer);
    $("graph-count").textContent = `(${nodes.length} people, ${edges.length} links)`;
  }

  // ---- forms -------------------------------------------------------------------------------------------
  function numberField(id) {
    const value = $(id).value.trim();
    return value === "" ? undefined : Number(value);
  }

  function options() {
    const budgets = {
      searches: numberField("opt-searches"),
      recognitions: numberField("opt-recognitions"),
      llmCalls: numberField("opt-llm"),
      runtimeSeconds: numberField("opt-runtime"),
    };
    for (const key of Object.keys(budgets)) if (budgets[key] === undefined) delete budgets[key];
    const chosen = { maxHops: numberField("opt-max-hops"), strategy: $("opt-strategy").value, budgets };
    if (chosen.maxHops === undefined) delete chosen.maxHops;
    return chosen;
  }

  $("run-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const personA = $("person-a").value.trim();
    const personB = $("person-b").value.trim();
    resetView(personA, personB);
    run = null;
    saveRun(null);
    const sent = connection.send({ action: "startRun", personA, personB, options: options() });
    if (!sent) {
      showError("Not connected to the API yet; try again in a moment.");
      return;
    }
    setStatus(`Starting ${personA} → ${personB}…`);
  });

  $("cancel").addEventListener("click", () => {
    if (run && !run.finished) connection.send({ action: "cancelRun", runId: run.runId, runToken: run.runToken });
  });

  $("settings-form").addEventListener("submit", (event) => {
    event.preventDefault();
    settings.save($("ws-url").value.trim(), $("ws-token").value);
    connection.reconnect();
  });

  $("settings-reset").addEventListener("click", () => {
    $("ws-url").value = "";
    $("ws-token").value = "";
    settings.save("", "");
    connection.reconnect();
  });

  // ---- start ---------------------------------------------------------------------------------------------
  $("ws-url").value = settings.url;
  $("ws-token").value = settings.token;
  resetView("", "");
  const resumed = savedRun();
  if (resumed) {
    // A reload: rebuild the view from the run's stored events (fromSeq 1), then follow it live.
    run = { runId: resumed.runId, runToken: resumed.runToken, lastSeq: 0, finished: false, resyncing: false };
    setStatus("Resuming the run this tab was watching…");
    setRunning(true);
  }
  connection.connect();

  // For tests and the curious: the state of the page, read-only.
  window.visualDegrees = Object.freeze({
    get run() { return run ? { ...run } : null; },
    get connected() { return connection.open; },
    dropConnection() { if (connection.socket) connection.socket.close(4000, "dropped on purpose"); },
  });
})();
