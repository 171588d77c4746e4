// Numbers and words the page prints: confidences, counts, spend. Pure functions, no DOM.

export const pct = (value) => `${Number(value).toFixed(1)}%`;
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
export const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

// A finite number from what an event carried, or null (absent, empty, not a number).
export function number(value) {
  const n = Number(value);
  return value === null || value === undefined || value === "" || !Number.isFinite(n) ? null : n;
}

// " · spent 2 searches, 7 recognitions, 0 LLM calls · $0.0170" (empty without a usage).
export function usage(u) {
  if (!u) return "";
  const cost = number(u.costUsd) === null ? "" : ` · $${Number(u.costUsd).toFixed(4)}`;
  const spent = [
    plural(number(u.searches) ?? 0, "search", "searches"),
    plural(number(u.recognitions) ?? 0, "recognition", "recognitions"),
    plural(number(u.llmCalls) ?? 0, "LLM call", "LLM calls"),
  ];
  return ` · spent ${spent.join(", ")}${cost}`;
}

// What each segment of a continued run spent (`segments` on a continuation's ending).
export function segmentsText(data) {
  const segments = Array.isArray(data.segments) ? data.segments : [];
  if (segments.length < 2) return "";
  const parts = segments.map((seg) => {
    const label = number(seg.segment) ? `continuation ${seg.segment}` : "first run";
    const cost = number(seg.costUsd);
    return `${label}: ${plural(number(seg.searches) ?? 0, "search", "searches")}${cost === null ? "" : `, $${cost.toFixed(4)}`}`;
  });
  return ` (${parts.join("; ")})`;
}
