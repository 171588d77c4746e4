// The run this page follows, over the protocol (lambdas/visual_degrees/protocol.py): starting,
// continuing and cancelling it, the replies, and its events in `seq` order (resuming after a drop).
import { Connection } from "./connection.js";
import { continuationBudgets, hideContinue, reconsiderContinue, showContinue } from "./continue.js";
import { $, setStatus, showError } from "./dom.js";
import { number } from "./format.js";
import { resetGraphView } from "./graph.js";
import { cardsPage } from "./cards.js";
import { showDidYouMean } from "./names.js";
import { showEnd, showFinal, showHint } from "./result.js";
import { RunView } from "./run_view.js";
import { saveRun, savedRun } from "./settings.js";
import { renderSpend } from "./spend.js";
import { markDirty, page } from "./state.js";

const TERMINAL = new Set(["final", "no_path", "cancelled", "error"]);

export const connection = new Connection({
  state(state, text) {
    const badge = $("connection");
    badge.dataset.state = state;
    badge.textContent = text;
    if (state !== "open") page.starting = false; // its answer, if any, went with the connection
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
  $("start").disabled = online && (starting || active);
  $("cancel").disabled = !(online && active);
  const busy = !online || starting || active;
  $("continue").disabled = busy || !(run && run.continuable);
  $("continue-via").disabled = busy || !(run && (run.continuable || run.withHint));
}

// A reload: rebuild the view from the run's stored events (fromSeq 1), then follow it live.
export function resumeSavedRun() {
  const resumed = savedRun();
  if (!resumed) return;
  page.run = {
    runId: resumed.runId, runToken: resumed.runToken, ceilings: resumed.ceilings, lastSeq: 0, finished: false,
    resyncing: false,
  };
  setStatus("Resuming the run this tab was watching…");
}

export function startRun(personA, personB, options) {
  if (page.starting || (page.run && !page.run.finished && connection.open)) return; // one run at a time
  resetView(personA, personB);
  page.run = null;
  saveRun(null);
  const sent = connection.send({ action: "startRun", personA, personB, options });
  if (!sent) {
    showError("Not connected to the API yet; try again in a moment.");
    refreshControls();
    return;
  }
  page.starting = true;
  page.continuing = false;
  page.viaField = "opt-via";
  page.view.budgets = options.budgets;
  refreshControls();
  setStatus(`Starting ${personA} → ${personB}…`);
}

export function continueRun(via) {
  const run = page.run;
  page.viaField = "try-via";
  if (!run || page.starting || !run.finished) return;
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
  if (run && !run.finished) connection.send({ action: "cancelRun", runId: run.runId, runToken: run.runToken });
}

// Follow the run from the first event not yet shown; events are ignored until `subscribed`.
function resubscribe() {
  const run = page.run;
  if (!run || run.finished) return;
  run.resyncing = true;
  connection.send({ action: "subscribe", runId: run.runId, fromSeq: run.lastSeq + 1, runToken: run.runToken });
}

function onReply(msg) {
  const run = page.run;
  switch (msg.type) {
    case "runAccepted":
      page.starting = false;
      page.continuing = false;
      page.run = {
        runId: msg.runId, runToken: msg.runToken, lastSeq: 0, finished: false, resyncing: false,
        ceilings: msg.ceilings && typeof msg.ceilings === "object" ? msg.ceilings : null, // the operator's
      };
      saveRun(page.run);
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
    if (msg.code === "above_ceiling") reconsiderContinue(msg);
  }
  if (msg.action === "startRun" || !run) page.starting = false;
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
  switch (ev.type) {
    case "run_started": {
      view.personA = String(data.personA || "");
      view.personB = String(data.personB || "");
      view.addNode(view.keyOf(view.personA), view.personA);
      view.addNode(view.keyOf(view.personB), view.personB);
      const own = data.options && data.options.budgets ? data.options.budgets : null;
      if (own) view.ownBudgets = { ...own };
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
      view.addEvidence(data);
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
    view.runtimeSpent += number(data.simSeconds) ?? 0; // one ending per segment
    // A run that stopped on a budget may be continued (and one nobody could be found for, with a hint).
    run.continuable = data.continuable === true;
    run.withHint = data.continuableWithHint === true;
    if (run.continuable || run.withHint) showContinue(data); else hideContinue();
    renderSpend();
    refreshControls();
  }
  markDirty(true, true);
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
