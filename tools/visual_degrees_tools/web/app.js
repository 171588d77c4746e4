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
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

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
  const PEOPLE_SHOWN = 4; // names listed on a card before "+N more"
  const cardsPage = () => (window.matchMedia("(max-width: 640px)").matches ? 6 : 12);

  let run = null; // { runId, runToken, lastSeq, finished, resyncing }
  let starting = false; // a startRun (or continueRun) is on its way and has had no answer yet
  let continuing = false; // ... and it is a continueRun
  let viaField = "opt-via"; // the field a `via` suggestion fills in: the form's, or Try via…
  let view = null;

  function freshView(personA, personB) {
    return {
      personA, personB,
      keys: new Map(), // display name -> key, as the server's events give them
      nodes: new Map(), // key -> { id, name }
      edges: new Map(), // "a|b" -> { source, target, confidence }
      fromA: [], // the partial path from A (display names), while the run works or when it gave up
      fromB: [], // the partial path from B
      path: [], // the final path, A … B
      final: false,
      photos: new Map(), // image URL -> one photo (one card), with everyone proven in it
      cited: new Map(), // pair -> the image URL the chain cites for it
      cardLimit: cardsPage(),
      usage: null, // the latest `usage` any event carried
      budgets: null, // the budgets this page asked for, when it started the run (a continuation: in total)
      ownSearches: null, // the run's own searches budget (run_started), what a continuation gets again
      segment: 0, // 0: the run as started; 1, 2, …: continuations (run_continued)
      segmentStart: null, // the run's usage when the current continuation began
    };
  }

  function resetView(personA, personB) {
    view = freshView(personA, personB);
    $("cards").replaceChildren();
    $("path").replaceChildren();
    $("result").hidden = true;
    hideContinue();
    showHint(null);
    $("error").hidden = true;
    $("did-you-mean").hidden = true;
    Object.assign(graphView, { selected: null, k: 1, tx: 0, ty: 0 });
    renderSpend();
    markDirty(true, true);
  }

  function setStatus(text) {
    $("status").textContent = text;
  }

  function showError(text) {
    const box = $("error");
    box.textContent = text;
    box.hidden = false;
  }

  // "Find a chain" waits while a run is starting or running; both buttons follow the connection, so a
  // dropped connection frees the form and a resumed run takes it again.
  function refreshControls() {
    const online = connection.open;
    const active = Boolean(run && !run.finished);
    $("start").disabled = online && (starting || active);
    $("cancel").disabled = !(online && active);
    const busy = !online || starting || active;
    $("continue").disabled = busy || !(run && run.continuable);
    $("continue-via").disabled = busy || !(run && (run.continuable || run.withHint));
  }

  // ---- protocol handling ----------------------------------------------------------------------------
  const connection = new Connection({
    state(state, text) {
      const badge = $("connection");
      badge.dataset.state = state;
      badge.textContent = text;
      if (state !== "open") starting = false; // its answer, if any, went with the connection
      refreshControls();
    },
    opened() {
      resubscribe();
      refreshControls();
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
        starting = false;
        continuing = false;
        run = { runId: msg.runId, runToken: msg.runToken, lastSeq: 0, finished: false, resyncing: false };
        saveRun(run);
        setStatus("Run accepted; waiting for the first step…");
        break;
      case "subscribed":
        if (run && msg.runId === run.runId) {
          run.resyncing = false;
          if (run.lastSeq > 0) setStatus("Reconnected; catching up on what was missed…");
        }
        break;
      case "continueAccepted":
        starting = false;
        continuing = false;
        if (run && msg.runId === run.runId) {
          run.finished = false;
          run.continuable = false;
          run.withHint = false;
          saveRun(run);
          hideContinue();
          setStatus(`Continuing the run${msg.via ? ` via ${msg.via}` : ""}…`);
        }
        break;
      case "cancelRequested":
        setStatus("Cancelling at the next step…");
        break;
      case "error":
        if (msg.action === "startRun" || (starting && !msg.action && !continuing)) {
          setStatus(msg.code === "unknown_person" ? "Not started: a name is not in this world." : "Not started.");
        }
        if (msg.action === "continueRun" || (starting && !msg.action && continuing)) {
          setStatus(msg.code === "unknown_person" ? "Not continued: that name is not in this world." : "Not continued.");
          starting = false;
          continuing = false;
          if (run && (msg.code === "not_continuable" || msg.code === "run_not_found")) {
            run.continuable = false;
            run.withHint = msg.code === "not_continuable" && msg.continuableWithHint === true;
            if (!run.withHint) hideContinue();
          }
        }
        if (msg.action === "startRun" || !run) starting = false;
        if (msg.code === "run_not_found" && run && (msg.action === "subscribe" || !msg.action)) {
          // The run is gone (expired, or another server): stop trying to resume it.
          run.finished = true;
          saveRun(null);
        } else if (run && run.resyncing && !run.finished) {
          // The resuming subscribe was refused for now (rate limited, busy): ask again shortly.
          setTimeout(resubscribe, 1000);
        }
        showError(`${msg.message || "Something went wrong"} (${msg.code || "error"})`);
        if (msg.code === "unknown_person") showDidYouMean(msg.suggestions);
        break;
      default:
        break;
    }
    refreshControls();
  }

  // unknown_person names the closest people the world has, per field: one button each fills it in.
  function showDidYouMean(suggestions) {
    const box = $("did-you-mean");
    box.replaceChildren();
    const fields = [["personA", "person-a", "From"], ["personB", "person-b", "To"], ["via", viaField, "Via"]];
    for (const [field, inputId, label] of fields) {
      const names = suggestions && Array.isArray(suggestions[field]) ? suggestions[field].map(String) : [];
      if (!names.length) continue;
      const line = el("p", null, `${label}: did you mean`);
      for (const name of names.slice(0, 5)) {
        const button = el("button", null, name);
        button.type = "button";
        button.addEventListener("click", () => {
          $(inputId).value = name;
          box.hidden = true;
          $("error").hidden = true;
          const again = inputId === "try-via" ? "continue-via" : "start";
          setStatus(again === "start" ? "Ready: press Find a chain." : "Ready: press Try via.");
          $(again).focus();
        });
        line.append(" ", button);
      }
      line.append("?");
      box.append(line);
    }
    box.hidden = box.children.length === 0;
  }

  function onEvent(ev) {
    if (!run || ev.runId !== run.runId || run.resyncing) return;
    if (ev.seq <= run.lastSeq) return; // already shown (replay overlap)
    if (ev.seq > run.lastSeq + 1) {
      resubscribe(); // a gap: ask for everything from the first missing event (this one included)
      return;
    }
    run.lastSeq = ev.seq;
    const data = ev.data && typeof ev.data === "object" ? ev.data : {};
    if (data.usage && typeof data.usage === "object") {
      view.usage = data.usage;
      renderSpend();
    }
    switch (ev.type) {
      case "run_started": {
        view.personA = String(data.personA || "");
        view.personB = String(data.personB || "");
        addNode(keyOf(view.personA), view.personA);
        addNode(keyOf(view.personB), view.personB);
        const own = data.options && data.options.budgets ? data.options.budgets : null;
        if (own) view.ownSearches = number(own.searches);
        if (!view.budgets && own) view.budgets = { ...own };
        setStatus(`Looking for a chain from ${view.personA} to ${view.personB}…`);
        break;
      }
      case "run_continued":
        onContinued(data);
        break;
      case "status":
        setStatus(data.message || "");
        break;
      case "evidence":
        addEvidence(data);
        break;
      case "path_update":
        onPathUpdate(data);
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
      // A run that stopped on a budget may be continued (and one nobody could be found for, with a hint).
      run.continuable = data.continuable === true;
      run.withHint = data.continuableWithHint === true;
      if (run.continuable || run.withHint) showContinue(data); else hideContinue();
      renderSpend();
      refreshControls();
    }
    markDirty(true, true);
  }

  // ---- people, links and photos ------------------------------------------------------------------
  // A person's key as the server computes it (domain/names.py name_key), learnt from the events when
  // they give it; the local guess only places the two endpoints before any evidence names them.
  function keyOf(name) {
    const text = String(name ?? "");
    return view.keys.get(text) || guessKey(text);
  }

  function guessKey(text) {
    return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/['’]/g, "")
      .replace(/[^\p{L}\p{N}_]+/gu, " ").trim();
  }

  function learnKey(name, key) {
    const text = String(name ?? "");
    const guess = keyOf(text);
    if (guess !== key && view.nodes.has(guess) && !view.nodes.has(key)) {
      const node = view.nodes.get(guess);
      view.nodes.delete(guess);
      node.id = key;
      view.nodes.set(key, node);
    }
    view.keys.set(text, key);
  }

  // The key for a (name, key?) pair as an event gives it.
  function keyFor(name, key) {
    if (typeof key === "string" && key) {
      if (name !== undefined && name !== null) learnKey(name, key);
      return key;
    }
    return keyOf(name);
  }

  const pairOf = (a, b) => (a < b ? `${a}|${b}` : `${b}|${a}`);

  function addNode(id, name) {
    if (!id) return;
    if (!view.nodes.has(id)) view.nodes.set(id, { id, name: String(name ?? id) });
  }

  function addEdge(a, b, confidence) {
    if (!a || !b || a === b) return;
    const key = pairOf(a, b);
    const value = Number.isFinite(confidence) ? confidence : 0;
    const current = view.edges.get(key);
    if (!current || current.confidence < value) view.edges.set(key, { source: a, target: b, confidence: value });
  }

  function number(value) {
    const n = Number(value);
    return value === null || value === undefined || value === "" || !Number.isFinite(n) ? null : n;
  }

  // One photo, however the events describe it: `evidence` with one pair (from/to/confidenceA/B),
  // with everyone in it (people, links), or both; later events about the same photo add to it.
  function photoFor(data) {
    const url = typeof data.imageUrl === "string" && data.imageUrl ? data.imageUrl : null;
    const id = url || `pair:${String(data.fromKey || data.from)}|${String(data.toKey || data.to)}`;
    let photo = view.photos.get(id);
    if (!photo) {
      photo = {
        id, imageUrl: url, pageUrl: "", title: "", order: view.photos.size,
        people: new Map(), links: new Map(), expanded: false, element: null, thumb: null, dirty: true,
      };
      view.photos.set(id, photo);
    }
    if (!photo.pageUrl && typeof data.pageUrl === "string") photo.pageUrl = data.pageUrl;
    if (!photo.title && typeof data.title === "string") photo.title = data.title;
    if (data.earlierRun && typeof data.provenAt === "string") photo.provenAt = data.provenAt;
    photo.dirty = true;
    return photo;
  }

  function notePerson(photo, key, name, confidence) {
    if (!key) return;
    const value = number(confidence);
    const known = photo.people.get(key);
    if (!known) {
      photo.people.set(key, { key, name: String(name ?? view.nodes.get(key)?.name ?? key), confidence: value });
    } else if (value !== null && (known.confidence === null || value > known.confidence)) {
      known.confidence = value;
    }
  }

  function noteLink(photo, a, b, nameA, nameB, confidence) {
    if (!a || !b || a === b) return;
    notePerson(photo, a, nameA, null);
    notePerson(photo, b, nameB, null);
    addNode(a, photo.people.get(a).name);
    addNode(b, photo.people.get(b).name);
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
    addEdge(a, b, value ?? 0);
  }

  function addEvidence(data) {
    const photo = photoFor(data);
    for (const p of Array.isArray(data.people) ? data.people : []) {
      if (!p || typeof p !== "object") continue;
      notePerson(photo, keyFor(p.name, p.key), p.name ?? p.key, p.confidence);
    }
    if (data.from !== undefined && data.to !== undefined) {
      const a = keyFor(data.from, data.fromKey);
      const b = keyFor(data.to, data.toKey);
      notePerson(photo, a, data.from, data.confidenceA);
      notePerson(photo, b, data.to, data.confidenceB);
      noteLink(photo, a, b, data.from, data.to, data.confidence);
    }
    for (const link of Array.isArray(data.links) ? data.links : []) {
      if (!link || typeof link !== "object") continue;
      const a = keyFor(link.from, link.fromKey);
      const b = keyFor(link.to, link.toKey);
      noteLink(photo, a, b, link.from, link.to, link.confidence);
    }
  }

  // A path_update names the chain so far from one side; newer servers add its links with their photos.
  function onPathUpdate(data) {
    const names = Array.isArray(data.path) ? data.path.map(String) : [];
    const fromB = data.side === "B" || (names.length > 0 && keyOf(names[0]) === keyOf(view.personB) &&
      keyOf(names[0]) !== keyOf(view.personA));
    if (fromB) view.fromB = names; else view.fromA = names;
    for (const edge of Array.isArray(data.edges) ? data.edges : []) {
      if (!edge || typeof edge !== "object") continue;
      const a = keyFor(edge.from, edge.fromKey);
      const b = keyFor(edge.to, edge.toKey);
      if (typeof edge.imageUrl === "string" && edge.imageUrl) {
        noteLink(photoFor(edge), a, b, edge.from, edge.to, edge.confidence);
        cite(a, b, edge.imageUrl);
      } else {
        addNode(a, edge.from);
        addNode(b, edge.to);
        addEdge(a, b, number(edge.confidence) ?? 0);
      }
    }
    const side = view.fromA.length > 1 ? view.fromA.join(" → ") : "";
    const other = view.fromB.length > 1 ? view.fromB.join(" → ") : "";
    setStatus(`So far: ${[side, other].filter(Boolean).join("  ·  ")}`);
  }

  // The chains to highlight, as lists of keys: the final path, or the partial ones from each side.
  function highlighted() {
    const lists = view.final ? [view.path] : [view.fromA, view.fromB];
    return lists.filter((names) => names.length > 0).map((names) => names.map(keyOf));
  }

  function highlightedPairs() {
    const pairs = new Map(); // pair -> position along its chain (for ordering cards)
    for (const keys of highlighted()) {
      for (let i = 1; i < keys.length; i += 1) pairs.set(pairOf(keys[i - 1], keys[i]), i);
    }
    return pairs;
  }

  // Which photo a link of the chain cites, when the server said (final edges, newer path_updates).
  function cite(a, b, imageUrl) {
    if (typeof imageUrl === "string" && imageUrl) view.cited.set(pairOf(a, b), imageUrl);
  }

  // ---- spend --------------------------------------------------------------------------------------------
  function renderSpend() {
    const box = $("spend");
    const u = view && view.usage;
    if (!u) {
      box.hidden = true;
      box.textContent = "";
      return;
    }
    const limits = view.budgets || {};
    const count = (used, limit, one, many) => {
      const n = number(used) ?? 0;
      return typeof limit === "number" ? `${n} of ${plural(limit, one, many)}` : plural(n, one, many);
    };
    const parts = [
      count(u.searches, limits.searches, "search", "searches"),
      count(u.recognitions, limits.recognitions, "recognition", "recognitions"),
      count(u.llmCalls, limits.llmCalls, "LLM call", "LLM calls"),
    ];
    const cost = number(u.costUsd);
    const done = run && run.finished;
    let text = `${done ? "Spent" : "Spent so far"}: ${cost === null ? "" : `$${cost.toFixed(4)} · `}${parts.join(" · ")}`;
    if (view.segment > 0 && view.segmentStart) {
      const since = (key) => Math.max(0, (number(u[key]) ?? 0) - (number(view.segmentStart[key]) ?? 0));
      const costSince = Math.max(0, (cost ?? 0) - (number(view.segmentStart.costUsd) ?? 0));
      text += ` (in all; continuation ${view.segment}: $${costSince.toFixed(4)} · ` +
        `${plural(since("searches"), "search", "searches")} · ${plural(since("recognitions"), "recognition", "recognitions")})`;
    }
    box.textContent = text;
    box.hidden = false;
  }

  function usage(u) {
    if (!u) return "";
    const cost = number(u.costUsd) === null ? "" : ` · $${Number(u.costUsd).toFixed(4)}`;
    const spent = [
      plural(number(u.searches) ?? 0, "search", "searches"),
      plural(number(u.recognitions) ?? 0, "recognition", "recognitions"),
      plural(number(u.llmCalls) ?? 0, "LLM call", "LLM calls"),
    ];
    return ` · spent ${spent.join(", ")}${cost}`;
  }

  // ---- cards: one per photo ---------------------------------------------------------------------------
  function renderCards() {
    const pairs = highlightedPairs();
    const onPathKeys = new Set(highlighted().flat());
    const photos = [...view.photos.values()];
    for (const photo of photos) {
      let rank = Infinity;
      for (const pair of photo.links.keys()) {
        const cited = view.cited.get(pair);
        if (pairs.has(pair) && (!cited || cited === photo.id)) rank = Math.min(rank, pairs.get(pair));
      }
      if (photo.rank !== rank) photo.dirty = true;
      photo.rank = rank;
      if (photo.dirty) renderCard(photo, onPathKeys);
    }
    // The chain's photos first (in chain order), then the newest.
    photos.sort((p, q) => p.rank - q.rank || q.order - p.order);
    const limit = Math.max(view.cardLimit, photos.filter((p) => p.rank < Infinity).length);
    photos.forEach((photo, i) => { photo.element.hidden = i >= limit; });
    $("cards").replaceChildren(...photos.map((p) => p.element));
    const more = $("more-cards");
    const hidden = Math.max(0, photos.length - limit);
    more.hidden = hidden === 0;
    const page = cardsPage();
    more.textContent = hidden > page ? `Show ${page} more of ${hidden} photos` : `Show ${plural(hidden, "more photo", "more photos")}`;
    const links = new Set(photos.flatMap((p) => [...p.links.keys()]));
    $("evidence-count").textContent = photos.length
      ? `(${photos.length} ${photos.length === 1 ? "photo" : "photos"} proving ${links.size} ${links.size === 1 ? "link" : "links"})`
      : "";
  }

  function renderCard(photo, onPathKeys) {
    photo.dirty = false;
    if (!photo.element) {
      photo.element = el("article", "card");
      photo.element.dataset.photo = photo.id;
      photo.thumb = thumbnail(photo.imageUrl, photo.pageUrl, photo.title || "Photo");
    }
    const article = photo.element;
    article.dataset.links = JSON.stringify([...photo.links.keys()].sort());
    article.classList.toggle("on-path", photo.rank < Infinity);
    const people = [...photo.people.values()].sort((p, q) =>
      Number(onPathKeys.has(q.key)) - Number(onPathKeys.has(p.key)) ||
      (q.confidence ?? 0) - (p.confidence ?? 0) || p.name.localeCompare(q.name));
    const shown = photo.expanded ? people : people.slice(0, PEOPLE_SHOWN);
    const list = el("ul", "people");
    for (const p of shown) list.append(person(p.name, p.confidence, p.key, onPathKeys.has(p.key)));
    const body = el("div", "card-body");
    body.append(list);
    if (shown.length < people.length) {
      const more = el("button", "more-people", `+${people.length - shown.length} more`);
      more.type = "button";
      more.addEventListener("click", () => {
        photo.expanded = true;
        renderCard(photo, onPathKeys);
      });
      body.append(more);
    }
    if (photo.title) {
      const caption = el("p", "caption", photo.title);
      caption.title = photo.title;
      body.append(caption);
    }
    const meta = el("p", "card-meta", `${photo.links.size} ${photo.links.size === 1 ? "link" : "links"}`);
    if (photo.provenAt) meta.append(` · ${provenLabel(photo.provenAt)}`);
    const source = photoUrl(photo.pageUrl) || photoUrl(photo.imageUrl);
    if (source) meta.append(" · ", sourceLink(source));
    body.append(meta);
    article.replaceChildren(...(photo.thumb ? [photo.thumb] : []), body);
  }

  function thumbnail(imageUrl, pageUrl, alt, eager) {
    const image = photoUrl(imageUrl);
    if (!image) return null;
    const img = el("img");
    img.src = image;
    img.alt = alt;
    if (!eager) img.loading = "lazy";
    img.referrerPolicy = "no-referrer";
    const link = el("a", "thumb");
    link.href = photoUrl(pageUrl) || image;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    link.append(img);
    return link;
  }

  function sourceLink(href) {
    const link = el("a", "source", "source");
    link.href = href;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    return link;
  }

  function person(name, confidence, key, onPath) {
    const row = el("li", onPath ? "person on-path" : "person");
    if (key) row.dataset.key = key;
    row.append(el("span", "name", name), el("span", "confidence", confidence === null ? "" : pct(confidence)));
    return row;
  }

  // A link read from the deployment's evidence graph: when an earlier run proved it.
  function provenLabel(provenAt) {
    return `proven ${String(provenAt).slice(0, 10)} by an earlier run`;
  }

  // A hop of the final path: its photo and both people's confidences.
  function hopCard(edge) {
    const ev = edge.evidence && typeof edge.evidence === "object" ? edge.evidence : {};
    const article = el("article", "card on-path");
    const thumb = thumbnail(ev.imageUrl, ev.pageUrl, ev.title ? `Photo: ${ev.title}` : `Photo of ${edge.from} and ${edge.to}`, true);
    const body = el("div", "card-body");
    const list = el("ul", "people");
    list.append(person(edge.from, number(ev.confidenceA), null, false), person(edge.to, number(ev.confidenceB), null, false));
    body.append(list);
    if (ev.title) {
      const caption = el("p", "caption", ev.title);
      caption.title = ev.title;
      body.append(caption);
    }
    const source = photoUrl(ev.pageUrl) || photoUrl(ev.imageUrl);
    if (source || ev.earlierRun) {
      const meta = el("p", "card-meta");
      if (ev.earlierRun) meta.append(provenLabel(ev.provenAt), source ? " · " : "");
      if (source) meta.append(sourceLink(source));
      body.append(meta);
    }
    article.replaceChildren(...(thumb ? [thumb] : []), body);
    return article;
  }

  // ---- the end of a run ----------------------------------------------------------------------------------
  // The run's verified graph as the server holds it at the end (it may know links no card showed).
  function mergeGraph(graph) {
    if (!graph || !Array.isArray(graph.nodes)) return;
    for (const node of graph.nodes) {
      if (!node || typeof node.id !== "string") continue;
      learnKey(node.name, node.id);
      addNode(node.id, node.name);
    }
    for (const edge of Array.isArray(graph.edges) ? graph.edges : []) {
      if (edge && view.nodes.has(edge.source) && view.nodes.has(edge.target)) {
        addEdge(edge.source, edge.target, number(edge.confidence) ?? 0);
      }
    }
  }

  function showFinal(data) {
    view.final = true;
    view.path = Array.isArray(data.path) ? data.path.map(String) : [];
    mergeGraph(data.graph);
    const result = $("result");
    result.dataset.outcome = "path";
    $("result-title").textContent = view.path.join(" → ");
    $("result-message").textContent = data.hops === 1
      ? "1 hop, proven by a photo of both people."
      : `${data.hops} hops, every one proven by a photo of both people.`;
    const list = $("path");
    list.replaceChildren();
    for (const edge of Array.isArray(data.edges) ? data.edges : []) {
      const item = el("li", "hop");
      item.append(el("p", "hop-title", `${edge.from} — ${edge.to} · ${pct(edge.confidence)}`), hopCard(edge));
      list.append(item);
      // A link can be proven by a photo the run held from an earlier step (or an earlier run) without an
      // `evidence` event of its own: its photo joins the cards, so every link of the path has one.
      const ev = edge.evidence && typeof edge.evidence === "object" ? edge.evidence : {};
      addEvidence({ ...ev, from: edge.from, to: edge.to, confidence: edge.confidence });
      cite(keyOf(edge.from), keyOf(edge.to), ev.imageUrl);
    }
    $("result-summary").textContent =
      `Bottleneck confidence ${pct(data.bottleneckConfidence)} · cumulative ${(Number(data.cumulativeConfidence) * 100).toFixed(1)}%` +
      usage(data.usage) + segmentsText(data);
    showHint(data.hint);
    result.hidden = false;
    setStatus(`Found a chain of ${plural(data.hops, "hop", "hops")}.`);
  }

  function showEnd(title, message, data, outcome) {
    const result = $("result");
    result.dataset.outcome = outcome;
    $("result-title").textContent = title;
    mergeGraph(data.graph);
    let reason = data.reason ? String(data.reason).replace(/_/g, " ") : "";
    if (data.reason === "hop_limit" && typeof data.maxHops === "number") reason += ` (max ${plural(data.maxHops, "hop", "hops")})`;
    if (data.reason === "budget" && data.exhausted) reason = `the ${String(data.exhausted).replace(/_/g, " ")} budget`;
    reason = reason ? ` Stopped by: ${reason}.` : "";
    $("result-message").textContent = message + reason;
    $("path").replaceChildren();
    const reached = [];
    for (const [field, side] of [["partialPath", null], ["partialPathFromB", "B"]]) {
      const names = Array.isArray(data[field]) ? data[field].map(String) : [];
      if (names.length < 2) continue;
      const fromB = side === "B" || keyOf(names[0]) === keyOf(view.personB);
      if (fromB) view.fromB = names; else view.fromA = names;
      reached.push(names.join(" → "));
    }
    $("result-summary").textContent =
      (reached.length ? `Got as far as: ${reached.join("; and from the other side: ")}.` : "") + usage(data.usage) +
      segmentsText(data);
    showHint(data.hint);
    result.hidden = false;
    setStatus(title + ".");
  }

  // ---- going on after a budget ran out, and hints ------------------------------------------------------
  // What each segment of a continued run spent (`segments` on a continuation's ending).
  function segmentsText(data) {
    const segments = Array.isArray(data.segments) ? data.segments : [];
    if (segments.length < 2) return "";
    const parts = segments.map((seg) => {
      const label = number(seg.segment) ? `continuation ${seg.segment}` : "first run";
      const cost = number(seg.costUsd);
      return `${label}: ${plural(number(seg.searches) ?? 0, "search", "searches")}${cost === null ? "" : `, $${cost.toFixed(4)}`}`;
    });
    return ` (${parts.join("; ")})`;
  }

  function onContinued(data) {
    view.segment = number(data.segment) ?? view.segment + 1;
    view.segmentStart = data.usage && typeof data.usage === "object" ? data.usage : null;
    view.final = false;
    run.finished = false;
    run.continuable = false;
    run.withHint = false;
    const more = data.budgets && typeof data.budgets === "object" ? data.budgets : {};
    const start = view.segmentStart || {};
    view.budgets = {
      searches: (number(start.searches) ?? 0) + (number(more.searches) ?? 0),
      recognitions: (number(start.recognitions) ?? 0) + (number(more.recognitions) ?? 0),
      llmCalls: (number(start.llmCalls) ?? 0) + (number(more.llmCalls) ?? 0),
    };
    $("result").hidden = true;
    hideContinue();
    showHint(null);
    setStatus(data.message || "Continuing the run…");
    refreshControls();
  }

  function showContinue(data) {
    const more = view.ownSearches ?? 20;
    const button = $("continue");
    button.textContent = `Continue (+${plural(more, "search", "searches")})`;
    button.hidden = data.continuable !== true;
    $("continue-why").textContent = String(data.why || "");
    $("continue-form").hidden = false;
  }

  function hideContinue() {
    $("continue-form").hidden = true;
  }

  // Whether the run's ending confirmed the user's hint, with the photos that show them (text only).
  function showHint(hint) {
    const line = $("result-hint");
    const list = $("hint-links");
    list.replaceChildren();
    if (!hint || typeof hint !== "object") {
      line.hidden = true;
      list.hidden = true;
      return;
    }
    line.dataset.confirmed = String(hint.confirmed === true);
    line.textContent = `Your hint, ${String(hint.name || "")}: ${String(hint.message || (hint.confirmed ? "confirmed" : "not confirmed"))}`;
    for (const link of Array.isArray(hint.links) ? hint.links : []) {
      if (!link || typeof link !== "object") continue;
      const item = el("li", null, `${link.from} — ${link.to} · ${pct(link.confidence)}`);
      const source = photoUrl(link.pageUrl) || photoUrl(link.imageUrl);
      if (source) item.append(sourceLink(source));
      list.append(item);
    }
    line.hidden = false;
    list.hidden = list.children.length === 0;
  }

  function continueRun(via) {
    if (!run || starting || !run.finished) return;
    const message = { action: "continueRun", runId: run.runId, runToken: run.runToken };
    if (via) message.via = via;
    if (!connection.send(message)) {
      showError("Not connected to the API yet; try again in a moment.");
      return;
    }
    starting = true;
    continuing = true;
    $("error").hidden = true;
    $("did-you-mean").hidden = true;
    setStatus(via ? `Asking to continue via ${via}…` : "Asking to continue…");
    refreshControls();
  }

  // ---- rendering is batched: one layout per frame however many events arrive --------------------------
  let framePending = false;
  let graphDirty = false;
  let cardsDirty = false;
  let viewDirty = false;

  function markDirty(graphChanged, cardsChanged) {
    graphDirty = graphDirty || graphChanged;
    cardsDirty = cardsDirty || cardsChanged;
    scheduleFrame();
  }

  function scheduleFrame() {
    if (framePending) return;
    framePending = true;
    requestAnimationFrame(() => {
      framePending = false;
      if (cardsDirty) { cardsDirty = false; renderCards(); }
      if (graphDirty) { graphDirty = false; viewDirty = false; drawGraph(); }
      if (viewDirty) { viewDirty = false; applyView(); }
    });
  }

  // ---- the graph --------------------------------------------------------------------------------------------
  // Laid out in the screen pixels of the panel (the viewBox is the drawn size), so a 12 px label is
  // 12 px on a phone too. People are placed in bands between A (left) and B (right) by their distance
  // from each, the chain on the middle line; every band is a grid over the whole height, so nothing
  // piles up. Only A, B, the chain and the people seen with A or with B are named by default; the
  // rest are dots until "Name everyone", zooming in, or a tap. Labels never overlap: each tries a few
  // places round its dot, in priority order, and stays hidden if none is free.
  const SVG_MARGIN = 20;
  const ZOOM_MAX = 6;
  const FONT = { endpoint: 13, path: 13, frontier: 12, other: 11 }; // px on screen, never below 11
  const RADIUS = { endpoint: 9, path: 7, frontier: 5, other: 3.5 };
  const RANK = { endpoint: 0, path: 1, frontier: 2, other: 3 };

  const graphView = {
    W: 800, H: 460, k: 1, tx: 0, ty: 0, // screen = layout × k + t
    nodes: [], edges: [], byId: new Map(), nameAll: false, selected: null,
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

  function layout(W, H) {
    const a = keyOf(view.personA);
    const b = keyOf(view.personB);
    const nodes = [...view.nodes.values()];
    const edges = [...view.edges.values()].filter((e) => view.nodes.has(e.source) && view.nodes.has(e.target));
    const neighbours = new Map(nodes.map((n) => [n.id, []]));
    for (const e of edges) {
      neighbours.get(e.source).push(e.target);
      neighbours.get(e.target).push(e.source);
    }
    const dA = distances(a, neighbours);
    const dB = distances(b, neighbours);
    const chains = highlighted();
    const onPath = new Set(chains.flat());
    const finalAt = view.final && chains.length ? new Map(chains[0].map((k, i) => [k, i])) : new Map();
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
        nearA: dA.get(n.id) === 1, nearB: dB.get(n.id) === 1,
      })),
      edges,
      a, b,
    };
  }

  function drawGraph() {
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
      return;
    }
    const drawn = layout(W, H);
    const chains = highlighted();
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
    const nearA = $("legend-near-a");
    const nearB = $("legend-near-b");
    const chainKey = $("legend-path");
    chainKey.textContent = view.final || !chains.some((keys) => keys.length > 1) ? "the chain" : "the chain so far";
    chainKey.classList.toggle("partial", !view.final);
    nearA.textContent = view.personA ? `seen with ${view.personA}` : "seen with A";
    nearB.textContent = view.personB ? `seen with ${view.personB}` : "seen with B";
    applyView();
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

  function applyView() {
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

  function scheduleView() {
    viewDirty = true;
    scheduleFrame();
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

  function installGraphControls() {
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

  // ---- the sandbox world: an example pair and name suggestions ------------------------------------------
  // The local server answers /api/world and /api/names about its sandbox world (local/world_info.py). The
  // deployed API searches the live web, which has no list of names: a page talking to it suggests none,
  // and says so.
  const world = { info: null };
  const NAMES_SHOWN = 8;
  const SUGGEST_AFTER_MS = 120; // typing pauses this long before the server is asked

  function usesThisServer() {
    return !settings.url || settings.url === defaultWsUrl();
  }

  async function loadWorld() {
    world.info = null;
    if (usesThisServer() && location.host) {
      try {
        const response = await fetch("/api/world", { headers: { Accept: "application/json" } });
        const info = response.ok ? await response.json() : null;
        world.info = info && typeof info === "object" && info.suggestions === true ? info : null;
      } catch {
        world.info = null; // not the local server (or it went away): no suggestions
      }
    }
    showWorld();
  }

  function showWorld() {
    const line = $("world");
    line.replaceChildren();
    const info = world.info;
    const example = info && info.example && typeof info.example === "object" ? info.example : null;
    const a = example ? String(example.personA || "") : "";
    const b = example ? String(example.personB || "") : "";
    $("person-a").placeholder = a ? `e.g. ${a}` : "a person's name";
    $("person-b").placeholder = b ? `e.g. ${b}` : "another person's name";
    if (info) {
      const people = Number(info.people);
      const size = Number.isFinite(people) ? ` · ${people.toLocaleString("en")} ${people === 1 ? "person" : "people"}` : "";
      line.append(`Sandbox world ${String(info.world || "")}${size} · names are suggested as you type`);
      if (a && b) {
        const button = el("button", null, `${a} → ${b}`);
        button.type = "button";
        button.id = "try-example";
        button.title = "Fill in this world's example pair";
        button.addEventListener("click", () => {
          $("person-a").value = a;
          $("person-b").value = b;
          nameBoxes.forEach((box) => box.close());
          $("start").focus();
        });
        line.append(" · try ", button);
      }
    } else {
      line.append(
        usesThisServer()
          ? "No name suggestions: this server has no sandbox world to suggest from."
          : "No name suggestions: the API in the connection settings searches the live web, where any name can be tried.",
      );
    }
    line.hidden = false;
  }

  // A combobox over one name field: suggestions from the world as the user types, keyboard and pointer.
  class NameBox {
    constructor(input, list) {
      this.input = input;
      this.list = list;
      this.timer = null;
      this.request = null;
      this.active = -1;
      this.names = [];
      input.addEventListener("input", () => this.changed());
      input.addEventListener("keydown", (event) => this.key(event));
      input.addEventListener("blur", () => this.close());
      list.addEventListener("mousedown", (event) => event.preventDefault()); // keep the focus in the field
      list.addEventListener("click", (event) => {
        const option = event.target instanceof Element ? event.target.closest("li[data-index]") : null;
        if (option) this.pick(Number(option.dataset.index));
      });
    }

    changed() {
      clearTimeout(this.timer);
      const text = this.input.value.trim();
      if (!world.info || text.length < 2) {
        this.close();
        return;
      }
      this.timer = setTimeout(() => this.ask(text), SUGGEST_AFTER_MS);
    }

    async ask(text) {
      if (this.request) this.request.abort();
      const request = new AbortController();
      this.request = request;
      try {
        const query = `q=${encodeURIComponent(text)}&limit=${NAMES_SHOWN}`;
        const response = await fetch(`/api/names?${query}`, { signal: request.signal });
        const data = response.ok ? await response.json() : null;
        if (request !== this.request || this.input.value.trim() !== text) return; // the user typed on
        const names = data && Array.isArray(data.names) ? data.names.map(String) : [];
        this.show(names.length === 1 && names[0] === text ? [] : names);
      } catch {
        // aborted by a newer request, or the server went away: nothing to show
      }
    }

    show(names) {
      this.names = names;
      this.active = -1;
      this.list.replaceChildren();
      names.forEach((name, index) => {
        const option = el("li", null, name);
        option.id = `${this.list.id}-${index}`;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        option.dataset.index = String(index);
        this.list.append(option);
      });
      const open = names.length > 0 && document.activeElement === this.input;
      this.list.hidden = !open;
      this.input.setAttribute("aria-expanded", String(open));
      this.input.removeAttribute("aria-activedescendant");
    }

    key(event) {
      const open = !this.list.hidden;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        if (!open) {
          if (this.names.length) this.show(this.names);
          return;
        }
        event.preventDefault();
        // Positions 0 … n-1 are the names, n the field as typed; the arrows cycle through them.
        const n = this.names.length;
        const at = this.active < 0 ? n : this.active;
        this.highlight((at + (event.key === "ArrowDown" ? 1 : n)) % (n + 1));
      } else if (event.key === "Enter" && open && this.active >= 0) {
        event.preventDefault(); // pick the name; the form is submitted by the next Enter
        this.pick(this.active);
      } else if (event.key === "Escape" && open) {
        event.preventDefault();
        this.close();
      }
    }

    highlight(index) {
      // names.length stands for "none": the field itself, as typed
      this.active = index < this.names.length ? index : -1;
      [...this.list.children].forEach((option, i) => option.setAttribute("aria-selected", String(i === this.active)));
      if (this.active >= 0) {
        const option = this.list.children[this.active];
        this.input.setAttribute("aria-activedescendant", option.id);
        option.scrollIntoView({ block: "nearest" });
      } else {
        this.input.removeAttribute("aria-activedescendant");
      }
    }

    pick(index) {
      const name = this.names[index];
      if (name === undefined) return;
      this.input.value = name;
      this.close();
    }

    close() {
      clearTimeout(this.timer);
      if (this.request) this.request.abort();
      this.request = null;
      this.active = -1;
      this.list.hidden = true;
      this.input.setAttribute("aria-expanded", "false");
      this.input.removeAttribute("aria-activedescendant");
    }
  }

  const nameBoxes = [
    new NameBox($("person-a"), $("suggest-a")),
    new NameBox($("person-b"), $("suggest-b")),
    new NameBox($("opt-via"), $("suggest-opt-via")),
    new NameBox($("try-via"), $("suggest-try-via")),
  ];

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
    const via = $("opt-via").value.trim();
    if (via) chosen.via = via;
    return chosen;
  }

  $("run-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (starting || (run && !run.finished && connection.open)) return; // one run at a time
    const personA = $("person-a").value.trim();
    const personB = $("person-b").value.trim();
    resetView(personA, personB);
    run = null;
    saveRun(null);
    const chosen = options();
    const sent = connection.send({ action: "startRun", personA, personB, options: chosen });
    if (!sent) {
      showError("Not connected to the API yet; try again in a moment.");
      refreshControls();
      return;
    }
    starting = true;
    continuing = false;
    viaField = "opt-via";
    view.budgets = chosen.budgets;
    refreshControls();
    setStatus(`Starting ${personA} → ${personB}…`);
  });

  $("continue").addEventListener("click", () => {
    viaField = "try-via";
    continueRun(null);
  });

  $("continue-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const via = $("try-via").value.trim();
    if (!via) {
      $("try-via").focus();
      return;
    }
    viaField = "try-via";
    continueRun(via);
  });

  $("cancel").addEventListener("click", () => {
    if (run && !run.finished) connection.send({ action: "cancelRun", runId: run.runId, runToken: run.runToken });
  });

  $("more-cards").addEventListener("click", () => {
    view.cardLimit += cardsPage();
    markDirty(false, true);
  });

  $("settings-form").addEventListener("submit", (event) => {
    event.preventDefault();
    settings.save($("ws-url").value.trim(), $("ws-token").value);
    connection.reconnect();
    loadWorld();
  });

  $("settings-reset").addEventListener("click", () => {
    $("ws-url").value = "";
    $("ws-token").value = "";
    settings.save("", "");
    connection.reconnect();
    loadWorld();
  });

  // ---- start ---------------------------------------------------------------------------------------------
  $("ws-url").value = settings.url;
  $("ws-token").value = settings.token;
  installGraphControls();
  resetView("", "");
  const resumed = savedRun();
  if (resumed) {
    // A reload: rebuild the view from the run's stored events (fromSeq 1), then follow it live.
    run = { runId: resumed.runId, runToken: resumed.runToken, lastSeq: 0, finished: false, resyncing: false };
    setStatus("Resuming the run this tab was watching…");
  }
  refreshControls();
  connection.connect();
  loadWorld();

  // For tests and the curious: the state of the page, read-only.
  window.visualDegrees = Object.freeze({
    get run() { return run ? { ...run } : null; },
    get connected() { return connection.open; },
    get world() { return world.info ? { ...world.info } : null; },
    get zoom() { return { ...(graphView.shown || { k: 1, tx: 0, ty: 0 }) }; }, // as drawn
    dropConnection() { if (connection.socket) connection.socket.close(4000, "dropped on purpose"); },
  });
})();
