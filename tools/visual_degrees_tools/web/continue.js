// Going on after a budget ran out: why the run may go on, how many more searches (at most what the
// operator's ceilings leave: they bound the run's total, and runAccepted says them), a Continue button
// and a Try via… field. Nothing is offered that the server would refuse as above_ceiling.
import { $ } from "./dom.js";
import { clamp, number, plural } from "./format.js";
import { showNext } from "./result.js";
import { page } from "./state.js";
import { inWords } from "./words.js";

const DEFAULT_SEARCHES = 20; // a run's own searches budget, when its start did not say
const LIMITS = [
  ["searches", "search", "searches"],
  ["recognitions", "recognition", "recognitions"],
  ["llmCalls", "LLM call", "LLM calls"],
  ["runtimeSeconds", "second of runtime", "seconds of runtime"],
];

// What the run may still spend under the ceilings, per budget; null when the server did not say them.
// The run's spend: its latest usage and the seconds its segments took (a refusal's `spent` when the
// server said more). A second is kept in hand on the runtime, which both sides round.
function room() {
  const { run, view } = page;
  const ceilings = run && run.ceilings && typeof run.ceilings.budgets === "object" ? run.ceilings.budgets : null;
  if (!ceilings) return null;
  const usage = view.usage || {};
  const told = view.spentTold || {};
  const left = {};
  for (const [key] of LIMITS) {
    const ceiling = number(ceilings[key]);
    const mine = key === "runtimeSeconds" ? view.runtimeSpent + 1 : number(usage[key]) ?? 0;
    left[key] = ceiling === null ? Infinity : Math.max(0, ceiling - Math.max(mine, number(told[key]) ?? 0));
  }
  left.runtimeSeconds = Math.floor(left.runtimeSeconds);
  return left;
}

// The budgets a continuation asks for: the chosen searches, and the run's own others again, each
// within what the ceilings leave.
export function continuationBudgets() {
  const left = room();
  const budgets = { searches: chosenSearches(left) };
  if (!left) return budgets;
  const own = page.view.ownBudgets || {};
  for (const [key] of LIMITS.slice(1)) {
    const most = Math.min(number(own[key]) ?? Infinity, left[key]);
    if (Number.isFinite(most)) budgets[key] = most; // else the run's own again, which no ceiling bounds
  }
  return budgets;
}

function chosenSearches(left) {
  const field = $("continue-searches");
  const most = left ? left.searches : Infinity;
  const typed = Math.round(Number(field.value));
  return clamp(Number.isFinite(typed) && typed >= 1 ? typed : 1, 1, most);
}

// Offer to continue; false when nothing can be offered (the run has spent a ceiling).
export function showContinue(data) {
  const view = page.view;
  view.lastEnding = data;
  const left = room();
  const full = left ? LIMITS.filter(([key]) => left[key] < 1 && key !== "llmCalls") : [];
  $("continue-form").hidden = false;
  if (full.length) {
    // The run has spent what the operator allows one run: nothing a continuation could ask would fit.
    const ceilings = page.run.ceilings.budgets;
    const spent = full.map(([key, one, many]) => `${plural(number(ceilings[key]) ?? 0, one, many)}`);
    $("continue-why").textContent = `${inWords(data.why)} This run has spent what this server allows ` +
      `one run (${spent.join(", ")}), so it cannot go on here; a new run reuses every photo already recognised.`;
    $("continue-actions").hidden = true;
    return false;
  }
  $("continue-why").textContent = inWords(data.why);
  $("continue-actions").hidden = false;
  const field = $("continue-searches");
  const own = number((view.ownBudgets || {}).searches) ?? DEFAULT_SEARCHES;
  if (left) field.max = String(left.searches); else field.removeAttribute("max");
  field.value = String(clamp(own, 1, left ? left.searches : Infinity));
  $("continue-room").textContent = left ? `up to ${left.searches} under this server's ceiling` : "";
  $("continue-amount").hidden = data.continuable !== true;
  $("continue").hidden = data.continuable !== true;
  labelContinue();
  return true;
}

// The button says what it will ask for; the field never keeps a number the server would refuse.
function labelContinue() {
  $("continue").textContent = `Continue (+${plural(chosenSearches(room()), "search", "searches")})`;
}

export function installContinue() {
  const field = $("continue-searches");
  field.addEventListener("input", labelContinue);
  field.addEventListener("change", () => {
    field.value = String(chosenSearches(room()));
    labelContinue();
  });
  // Enter in the field continues (the form's own submit is Try via).
  field.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    field.value = String(chosenSearches(room()));
    $("continue").click();
  });
}

// A refusal that says the ceilings and the spend (above_ceiling): offer again what fits.
export function reconsiderContinue(refusal) {
  const { run, view } = page;
  if (!run || !refusal.ceilings || typeof refusal.ceilings !== "object") return;
  run.ceilings = refusal.ceilings;
  view.spentTold = refusal.spent && typeof refusal.spent === "object" ? refusal.spent : null;
  if (view.lastEnding) showNext(view.lastEndingType || "no_path", view.lastEnding, showContinue(view.lastEnding));
}

export function hideContinue() {
  $("continue-form").hidden = true;
}
