// The runs this browser started (localStorage): each with its tokens, so its address (`?run=ID`)
// replays it here with everything its starter may do, and its share link for others; listed under
// "Your runs", newest first.
import { $, el } from "./dom.js";

const KEY = "vd.runs";
const KEPT = 50; // the newest runs kept; older ones drop off the list

function load() {
  try {
    const runs = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(runs) ? runs.filter((r) => r && typeof r.runId === "string" && typeof r.runToken === "string") : [];
  } catch {
    return [];
  }
}

function store(runs) {
  try {
    localStorage.setItem(KEY, JSON.stringify(runs.slice(0, KEPT)));
  } catch {
    // storage full or refused (private mode): the list is a convenience, the run goes on
  }
}

export function knownRun(runId) {
  return load().find((r) => r.runId === runId) || null;
}

// A run this browser just started (runAccepted): its tokens, the server's ceilings, the API it runs on.
export function rememberRun(run) {
  const entry = {
    runId: run.runId, runToken: run.runToken, shareToken: run.shareToken || null, ceilings: run.ceilings || null,
    api: run.api || "", startedAt: Date.now(), personA: "", personB: "", outcome: "",
  };
  store([entry, ...load().filter((r) => r.runId !== run.runId)]);
  renderMyRuns();
}

// Later facts about a run of ours (its names once it started, how it ended, new ceilings).
export function updateRun(runId, changes) {
  const runs = load();
  const found = runs.find((r) => r.runId === runId);
  if (!found) return;
  Object.assign(found, changes);
  store(runs);
  renderMyRuns();
}

export function renderMyRuns() {
  const runs = load();
  const list = $("my-runs-list");
  list.replaceChildren();
  for (const run of runs) {
    const item = el("li");
    const link = el("a", null, run.personA && run.personB ? `${run.personA} → ${run.personB}` : run.runId);
    link.href = `?run=${encodeURIComponent(run.runId)}`;
    item.append(link);
    const when = Number(run.startedAt) ? new Date(Number(run.startedAt)).toLocaleString() : "";
    const about = [run.outcome, when].filter(Boolean).join(" · ");
    if (about) item.append(el("span", "my-run-about", ` ${about}`));
    list.append(item);
  }
  $("my-runs-count").textContent = runs.length ? `(${runs.length})` : "";
  $("my-runs").hidden = runs.length === 0;
}
