// The end of a run: the path hop by hop with its photos and confidences, or why there is none, how far
// each side got, what was spent, and what became of a hint.
import { hopCard } from "./cards.js";
import { $, el, photoUrl, setStatus, sourceLink } from "./dom.js";
import { pct, plural, segmentsText, usage } from "./format.js";
import { page } from "./state.js";

export function showFinal(data) {
  const view = page.view;
  view.final = true;
  view.path = Array.isArray(data.path) ? data.path.map(String) : [];
  view.mergeGraph(data.graph);
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
    view.addEvidence({ ...ev, from: edge.from, to: edge.to, confidence: edge.confidence });
    view.cite(view.keyOf(edge.from), view.keyOf(edge.to), ev.imageUrl);
  }
  $("result-summary").textContent =
    `Bottleneck confidence ${pct(data.bottleneckConfidence)} · cumulative ${(Number(data.cumulativeConfidence) * 100).toFixed(1)}%` +
    usage(data.usage) + segmentsText(data);
  showHint(data.hint);
  result.hidden = false;
  setStatus(`Found a chain of ${plural(data.hops, "hop", "hops")}.`);
}

export function showEnd(title, message, data, outcome) {
  const view = page.view;
  const result = $("result");
  result.dataset.outcome = outcome;
  $("result-title").textContent = title;
  view.mergeGraph(data.graph);
  let reason = data.reason ? String(data.reason).replace(/_/g, " ") : "";
  if (data.reason === "hop_limit" && typeof data.maxHops === "number") reason += ` (max ${plural(data.maxHops, "hop", "hops")})`;
  if (data.reason === "budget" && data.exhausted) reason = `the ${String(data.exhausted).replace(/_/g, " ")} budget`;
  reason = reason ? ` Stopped by: ${reason}.` : "";
  $("result-message").textContent = message + reason;
  $("path").replaceChildren();
  const reached = view.addPartialPaths(data);
  $("result-summary").textContent =
    (reached.length ? `Got as far as: ${reached.join("; and from the other side: ")}.` : "") + usage(data.usage) +
    segmentsText(data);
  showHint(data.hint);
  result.hidden = false;
  setStatus(title + ".");
}

// Whether the run's ending confirmed the user's hint, with the photos that show them (text only).
export function showHint(hint) {
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
