// The run this page follows, over the protocol (lambdas/visual_degrees/protocol.py): starting,
// continuing and cancelling it, the replies, and its events in `seq` order (resuming after a drop);
// a run named by the page's address (`?run=ID`): one of this browser's, or one shared with it.
import { Connection } from "./connection.js";
import { continuationBudgets, hideContinue, reconsiderContinue, showContinue } from "./continue.js";
import { $, setStatus, showError } from "./dom.js";
import { number } from "./format.js";
import { resetGraphView } from "./graph.js";
import { cardsPage } from "./cards.js";
import { showDidYouMean } from "./names.js";
import { knownRun, rememberRun, updateRun } from "./my_runs.js";
import { showEnd, showFinal, showHint } from "./result.js";
import { RunView } from "./run_view.js";
import { saveRun, savedRun, settings } from "./settings.js";
import { linkedRun, renderShare, showRunAddress } from "./share.js";
import { renderSpend } from "./spend.js";
import { markDirty, page } from "./state.js";
import { refusal } from "./words.js";

const TERMINAL = new Set(["final", "no_path", "cancelled", "error"]);
// How each ending is listed under "Your runs".
const OUTCOMES = { final: "found a chain", no_path: "no chain", cancelled: "cancelled", error: "failed" };

export const connection = new Connection({
  state(state, text) {
    const badge = $("connection");
    badge.dataset.state = state;
    badge.textContent = text;
    if (state !== "open") page.starting = false; // its answer, if any, went with the connection
    refreshControls();
  },
  opened() {
    if (page.pendingStart) {
      const message = page.pendingStart;
      page.pendingStart = null;
      if (connection.send(message)) page.starting = true;
    } else {
      resubscribe();
    }
    refreshControls();
  },
  message(msg) {
    if (typeof msg.seq === "number") onEvent(msg);
    else onReply(msg);
  },
});

export function resetView(personA, personB) {
  page.view = new RunView(personA, personB, cardsPage());
  $("cards").replaceChildren();
  $("path").replaceChildren();
  $("result").hidden = true;
  hideContinue();
  showHint(null);
  $("error").hidden = true;
  $("did-you-mean").hidden = true;
  resetGraphView();
  renderSpend();
  markDirty(true, true);
}

// "Find a chain" waits while a run is starting or running; both buttons follow the connection, so a
// dropped connection frees the form and a resumed run takes it again.
export function refreshControls() {
  const { run, starting } = page;
  const online = connection.open;
  const active = Boolean(run && !run.finished);
  const mine = Boolean(run && !run.readOnly);
  $("start").disabled = online && (starting || (active && mine));
  $("cancel").disabled = !(online && active && mine);
  const busy = !online || starting || active;
  $("continue").disabled = busy || !(run && mine && run.continuable);
  $("continue-via").disabled = busy || !(run && mine && (run.continuable || run.withHint));
}

// Open the run the page's address names (a link from "Your runs", a share link, a reload), else the
// one this tab was watching: rebuild the view from its stored events (fromSeq 1), then follow it live.
export function resumeRun() {
  const link = linkedRun();
  if (link) {
    const mine = knownRun(link.runId);
    if (mine) {
      page.run = fresh({ ...mine, readOnly: false });
      setStatus("Replaying your run…");
    } else {
      page.run = fresh({ runId: link.runId, shareToken: link.share, api: link.api, readOnly: true });
      page.shared = link.share ? { runId: link.runId, token: link.share, api: link.api } : null;
      setStatus(link.share ? "Replaying a run shared with you…" : "Looking for this run…");
    }
  } else {
    const resumed = savedRun();
    if (!resumed) return;
    page.run = fresh({ ...(knownRun(resumed.runId) || {}), ...resumed, readOnly: false });
    setStatus("Resuming the run this tab was watching…");
  }
  $("viewing").hidden = !(page.run.readOnly && page.run.shareToken);
  renderShare(page.run);
}

function fresh(run) {
  return {
    runId: run.runId, runToken: run.runToken || null, shareToken: run.shareToken || null,
    ceilings: run.ceilings && typeof run.ceilings === "object" ? run.ceilings : null, api: run.api || "",
    readOnly: run.readOnly === true, lastSeq: 0, finished: false, resyncing: false,
  };
}

export function startRun(personA, personB, options) {
  const going = page.run && !page.run.finished && !page.run.readOnly;
  if (page.starting || (going && connection.open)) return; // one run of ours at a time
  resetView(personA, personB);
  const message = { action: "startRun", personA, personB, options };
  const leaving = page.run && page.run.readOnly;
  page.run = null;
  saveRun(null);
  renderShare(null);
  $("viewing").hidden = true;
  if (leaving) {
    // A run shared with this page was on screen: the new run is this browser's own, on its own server
    // and token, so the page leaves the shared run's address and connection first.
    history.replaceState(null, "", location.pathname);
    const reconnect = page.shared !== null;
    page.shared = null;
    if (reconnect) {
      page.pendingStart = message;
      connection.reconnect();
      prepareStart(personA, personB, options);
      return;
    }
  }
  const sent = connection.send(message);
  if (!sent) {
    showError("Not connected to the API yet; try again in a moment.");
    refreshControls();
    return;
  }
  page.starting = true;
  prepareStart(personA, personB, options);
}

function prepareStart(personA, personB, options) {
  page.continuing = false;
  page.viaField = "opt-via";
  page.view.budgets = options.budgets;
  refreshControls();
  setStatus(`Starting ${personA} → ${personB}…`);
}

export function continueRun(via) {
  const run = page.run;
  page.viaField = "try-via";
  if (!run || run.readOnly || page.starting || !run.finished) return;
  const message = { action: "continueRun", runId: run.runId, runToken: run.runToken, budgets: continuationBudgets() };
  if (via) message.via = via;
  if (!connection.send(message)) {
    showError("Not connected to the API yet; try again in a moment.");
    return;
  }
  page.starting = true;
  page.continuing = true;
  $("error").hidden = true;
  $("did-you-mean").hidden = true;
  setStatus(via ? `Asking to continue via ${via}…` : "Asking to continue…");
  refreshControls();
}

export function cancelRun() {
  const run = page.run;
  if (run && !run.finished && !run.readOnly) {
    connection.send({ action: "cancelRun", runId: run.runId, runToken: run.runToken });
  }
}

// Follow the run from the first event not yet shown; events are ignored until `subscribed`.
function resubscribe() {
  const run = page.run;
  if (!run || run.finished) return;
  run.resyncing = true;
  const message = { action: "subscribe", runId: run.runId, fromSeq: run.lastSeq + 1 };
  if (run.runToken) message.runToken = run.runToken;
  else if (run.shareToken) message.shareToken = run.shareToken; // a run shared with this page: watch only
  connection.send(message);
}

function onReply(msg) {
  const run = page.run;
  switch (msg.type) {
    case "runAccepted":
      page.starting = false;
      page.continuing = false;
      page.run = fresh({
        runId: msg.runId, runToken: msg.runToken, shareToken: msg.shareToken, api: settings.url,
        ceilings: msg.ceilings, // the operator's
      });
      saveRun(page.run);
      rememberRun(page.run);
      showRunAddress(msg.runId);
      renderShare(page.run);
      setStatus("Run accepted; waiting for the first step…");
      break;
    case "subscribed":
      if (run && msg.runId === run.runId) {
        run.resyncing = false;
        if (run.lastSeq > 0) setStatus("Reconnected; catching up on what was missed…");
      }
      break;
    case "continueAccepted":
      page.starting = false;
      page.continuing = false;
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
      onRefusal(msg);
      break;
    default:
      break;
  }
  refreshControls();
}

function onRefusal(msg) {
  const run = page.run;
  if (msg.action === "startRun" || (page.starting && !msg.action && !page.continuing)) {
    setStatus(msg.code === "unknown_person" ? "Not started: a name is not in this world." : "Not started.");
  }
  if (msg.action === "continueRun" || (page.starting && !msg.action && page.continuing)) {
    setStatus(msg.code === "unknown_person" ? "Not continued: that name is not in this world." : "Not continued.");
    page.starting = false;
    page.continuing = false;
    if (run && (msg.code === "not_continuable" || msg.code === "run_not_found")) {
      run.continuable = false;
      run.withHint = msg.code === "not_continuable" && msg.continuableWithHint === true;
      if (!run.withHint) hideContinue();
    }
    if (msg.code === "above_ceiling" && run) {
      reconsiderContinue(msg);
      saveRun(run);
      updateRun(run.runId, { ceilings: run.ceilings });
    }
  }
  if (msg.action === "startRun" || msg.code === "read_only" || !run) page.starting = false;
  if (msg.code === "run_not_found" && run && (msg.action === "subscribe" || !msg.action)) {
    // The run is gone (expired, another server) or not open to this browser: stop trying to resume it.
    run.finished = true;
    saveRun(null);
    $("viewing").hidden = true;
    renderShare(null);
    setStatus("This run cannot be shown here.");
  } else if (run && run.resyncing && !run.finished) {
    // The resuming subscribe was refused for now (rate limited, busy): ask again shortly.
    setTimeout(resubscribe, 1000);
  }
  showError(refusal(msg, { mine: Boolean(run && !run.readOnly), shared: Boolean(run && run.readOnly && run.shareToken) }));
  if (msg.code === "unknown_person") showDidYouMean(msg.suggestions);
}

function onEvent(ev) {
  const { run, view } = page;
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
  if (TERMINAL.has(ev.type)) {
    run.finished = true;
    view.runtimeSpent += number(data.simSeconds) ?? 0; // one ending per segment
  }
  switch (ev.type) {
    case "run_started": {
      view.personA = String(data.personA || "");
      view.personB = String(data.personB || "");
      view.addNode(view.keyOf(view.personA), view.personA);
      view.addNode(view.keyOf(view.personB), view.personB);
      const own = data.options && data.options.budgets ? data.options.budgets : null;
      if (own) view.ownBudgets = { ...own };
      if (!view.budgets && own) view.budgets = { ...own };
      if (!run.readOnly) updateRun(run.runId, { personA: view.personA, personB: view.personB });
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
      view.addEvidence(data);
      break;
    case "path_update":
      onPathUpdate(data);
      break;
    case "final":
      showFinal(data);
      break;
    case "no_path":
    case "cancelled":
    case "error":
      endWithoutPath(ev.type, data);
      break;
    default:
      break;
  }
  if (TERMINAL.has(ev.type)) {
    if (ev.type === "final") hideContinue();
    if (!run.readOnly) updateRun(run.runId, { outcome: OUTCOMES[ev.type] });
    renderSpend();
    refreshControls();
  }
  markDirty(true, true);
}

// A run that stopped on a budget may be continued (and one nobody could be found for, with a hint), by
// whoever started it: the ending says so, and what else the user can do.
function endWithoutPath(type, data) {
  const run = page.run;
  page.view.lastEndingType = type;
  run.continuable = data.continuable === true;
  run.withHint = data.continuableWithHint === true;
  let offered = false;
  if ((run.continuable || run.withHint) && !run.readOnly) offered = showContinue(data);
  else hideContinue();
  showEnd(type, data, offered);
}

function onPathUpdate(data) {
  const view = page.view;
  view.addPathUpdate(data);
  const side = view.fromA.length > 1 ? view.fromA.join(" → ") : "";
  const other = view.fromB.length > 1 ? view.fromB.join(" → ") : "";
  setStatus(`So far: ${[side, other].filter(Boolean).join("  ·  ")}`);
}

function onContinued(data) {
  const { run, view } = page;
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
