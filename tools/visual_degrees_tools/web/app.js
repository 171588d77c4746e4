// Visual Degrees: watch a run live over the WebSocket protocol (lambdas/visual_degrees/protocol.py),
// against the local server (`visual-degrees serve`) and the deployed API alike. This module wires the
// page's parts (ES modules beside it, no build step) to the form and its buttons, and starts it.
// Every piece of data is rendered as text (textContent, attributes): never as markup.
import { cardsPage, renderCards } from "./cards.js";
import { installContinue } from "./continue.js";
import { $ } from "./dom.js";
import { applyView, drawGraph, graphView, installGraphControls } from "./graph.js";
import { installNameBoxes, loadWorld, world } from "./names.js";
import { renderMyRuns } from "./my_runs.js";
import { cancelRun, connection, continueRun, refreshControls, resetView, resumeRun, startRun } from "./run.js";
import { settings } from "./settings.js";
import { installShare } from "./share.js";
import { markDirty, onFrame, page } from "./state.js";

function numberField(id) {
  const value = $(id).value.trim();
  return value === "" ? undefined : Number(value);
}

// The run options as the form gives them (startRun's `options`).
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
  startRun($("person-a").value.trim(), $("person-b").value.trim(), options());
});

$("continue").addEventListener("click", () => continueRun(null));

$("continue-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const via = $("try-via").value.trim();
  if (!via) {
    $("try-via").focus();
    return;
  }
  continueRun(via);
});

$("cancel").addEventListener("click", cancelRun);

$("more-cards").addEventListener("click", () => {
  page.view.cardLimit += cardsPage();
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

// ---- start -----------------------------------------------------------------------------------------
onFrame({ cards: renderCards, graph: drawGraph, view: applyView });
$("ws-url").value = settings.url;
$("ws-token").value = settings.token;
installNameBoxes();
installContinue();
installGraphControls();
installShare();
renderMyRuns();
resetView("", "");
resumeRun();
refreshControls();
connection.connect();
loadWorld();

// For tests and the curious: the state of the page, read-only.
window.visualDegrees = Object.freeze({
  get run() { return page.run ? { ...page.run } : null; },
  get connected() { return connection.open; },
  get world() { return world.info ? { ...world.info } : null; },
  get zoom() { return { ...(graphView.shown || { k: 1, tx: 0, ty: 0 }) }; }, // as drawn
  dropConnection() { connection.drop(); },
});
