// The live spend line: searches, recognitions and LLM calls (out of the budgets this page asked for)
// and dollars, from the latest event that carried `usage`; a continuation's share besides the total.
import { $ } from "./dom.js";
import { number, plural } from "./format.js";
import { page } from "./state.js";

export function renderSpend() {
  const box = $("spend");
  const view = page.view;
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
  const done = page.run && page.run.finished;
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
