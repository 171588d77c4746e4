// The end of a run: the path hop by hop with its photos and confidences, or why there is none, how far
// each side got, what was spent, what became of a hint, and what the user can do next (words.js).
import { hopCard, pageLink } from "./cards.js";
import { $, el, setStatus } from "./dom.js";
import { pct, plural, segmentsText, usage } from "./format.js";
import { page } from "./state.js";
import { PHOTO_CAVEAT, confidenceWords, ending, eventWords } from "./words.js";

const OUTCOME = { no_path: "no-path", cancelled: "cancelled", error: "failed" };

export function showFinal(data) {
  const view = page.view;
  view.final = true;
  view.path = Array.isArray(data.path) ? data.path.map(String) : [];
  view.mergeGraph(data.graph);
  const result = $("result");
  result.dataset.outcome = "path";
  const said = ending("final", data);
  $("result-title").textContent = view.path.join(" → ");
  $("result-message").textContent = said.what;
  $("result-next").textContent = said.next;
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
  showConfidence(confidenceWords(data), String(data.caveat || PHOTO_CAVEAT));
  showDegrees(data.degrees);
  $("result-summary").textContent = (usage(data.usage) + segmentsText(data)).replace(/^ · spent/, "Spent");
  showHint(data.hint);
  result.hidden = false;
  setStatus(`Found a chain of ${plural(data.hops, "hop", "hops")}.`);
}

// A run that ended without a path (`no_path`, `cancelled`, `error`); `offered`: the page offers to
// continue it.
export function showEnd(type, data, offered) {
  const view = page.view;
  const result = $("result");
  result.dataset.outcome = OUTCOME[type] || "failed";
  view.mergeGraph(data.graph);
  const said = ending(type, data, { readOnly: Boolean(page.run && page.run.readOnly), offered });
  $("result-title").textContent = said.title;
  $("result-message").textContent = said.what;
  $("result-next").textContent = said.next;
  $("path").replaceChildren();
  showConfidence([], null);
  showDegrees(null);
  const reached = view.addPartialPaths(data);
  $("result-summary").textContent =
    (reached.length ? `Got as far as: ${reached.join("; and from the other side: ")}.` : "") + usage(data.usage) +
    segmentsText(data);
  showHint(data.hint);
  result.hidden = false;
  setStatus(`${said.title}.`);
}

// What the user can do next, again: the continuation offered changed (a refusal said the ceilings).
export function showNext(type, data, offered) {
  $("result-next").textContent = ending(type, data, { readOnly: Boolean(page.run && page.run.readOnly), offered }).next;
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
    const event = eventWords(link.event);
    const item = el("li", null, `${link.from} — ${link.to} · ${pct(link.confidence)}${event ? ` · ${event}` : ""} `);
    const source = pageLink(link.pageUrl, link.imageUrl);
    if (source) item.append(source);
    list.append(item);
  }
  line.hidden = false;
  list.hidden = list.children.length === 0;
}

// The chain's confidences in words, and what a photo proves and does not (none without a chain).
function showConfidence(lines, caveat) {
  const list = $("result-confidence");
  list.replaceChildren(...lines.map((line) => el("li", null, line)));
  list.hidden = lines.length === 0;
  const said = $("result-caveat");
  said.textContent = caveat || "";
  said.hidden = !caveat;
}

// The answer's degrees and what rules fewer out, in the server's words (one line each; none from a
// server that does not send them).
function showDegrees(degrees) {
  const box = $("result-degrees");
  const lines = degrees && Array.isArray(degrees.lines) ? degrees.lines.map(String) : [];
  const checks = el("ul", "degree-checks");
  checks.append(...lines.slice(1).map((line) => el("li", "", line)));
  box.replaceChildren(...(lines.length ? [el("p", "degree-count", lines[0]), checks] : []));
  box.hidden = lines.length === 0;
}
