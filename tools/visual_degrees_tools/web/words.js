// What the page tells people: how a run ended and why the server refused something, each with what the
// user can do next, in their words: no error codes, no field names of the protocol (the same words as
// the CLI's, lambdas/visual_degrees/domain/wording.py and local/console.py). Pure functions, no DOM.
import { pct, plural } from "./format.js";

// A budget by what it counts (domain/wording.py's BUDGET_WORDS).
const BUDGET_WORDS = { searches: "searches", recognitions: "recognitions", llmCalls: "LLM calls", runtime: "time", runtimeSeconds: "time" };

// The protocol's field names as the page's form labels them, longest first.
const FIELD_WORDS = [
  ["options.budgets.searches", "Searches"],
  ["options.budgets.recognitions", "Recognitions"],
  ["options.budgets.llmCalls", "LLM calls"],
  ["options.budgets.runtimeSeconds", "Runtime"],
  ["budgets.searches", "More searches"],
  ["budgets.recognitions", "Recognitions"],
  ["budgets.llmCalls", "LLM calls"],
  ["budgets.runtimeSeconds", "Runtime"],
  ["options.maxHops", "Max hops"],
  ["options.imagesPerSearch", "Images per search"],
  ["options.threshold", "Threshold"],
  ["options.strategy", "Strategy"],
  ["options.ttlSeconds", "How long the run is kept"],
  ["options.via", "Via"],
  ["options", "Options"],
  ["personA", "From"],
  ["personB", "To"],
  ["via", "Via"],
];
const FIELDS = new RegExp(`(^|[^\\w.])(${FIELD_WORDS.map(([name]) => name.replace(/\./g, "\\.")).join("|")})(?![\\w.])`, "g");
const FIELD_LABEL = new Map(FIELD_WORDS);
const CODE = / ?\(([a-z]+(?:_[a-z]+)+)\)/g; // "(provider_unavailable)": a code in parentheses

const AGAIN = "a new run reuses every photo this one recognised";

// A server's message in the page's words: codes in parentheses go, field names become the labels.
export function inWords(text) {
  return String(text || "")
    .replace(CODE, "")
    .replace(/ \(via\)/g, "")
    .replace(FIELDS, (_all, before, name) => before + FIELD_LABEL.get(name));
}

export function budgetWords(name) {
  return BUDGET_WORDS[name] || "searches";
}

// How a run ended: { title, what, next } (what happened; what the user can do next). `readOnly`: a run
// shared with this page, which it may watch but not continue; `offered`: the page offers a continuation.
export function ending(type, data, { readOnly = false, offered = false } = {}) {
  const startAgain = `Start it again with Find a chain: ${AGAIN}.`;
  switch (type) {
    case "final": {
      const hops = Number(data.hops);
      return {
        title: Array.isArray(data.path) ? data.path.map(String).join(" → ") : "A chain was found",
        what: hops === 1 ? "1 hop, proven by a photo of both people." : `${hops} hops, every one proven by a photo of both people.`,
        next: "Share it with its link, or ask about two other people.",
      };
    }
    case "no_path":
      return noPath(data, readOnly, offered);
    case "cancelled":
      return {
        title: "Cancelled",
        what: "The run was cancelled before it found a chain.",
        next: readOnly ? `Whoever started it may start it again; or ask about this pair yourself with Find a chain.` : startAgain,
      };
    default: {
      const what = inWords(data.message) || "The run stopped on an error.";
      let next = startAgain;
      if (data.continuable === true) next = readOnly ? "Whoever started it may ask to continue it." : "Ask to continue it again below.";
      else if (readOnly) next = "Ask about this pair yourself with Find a chain: a new run reuses every photo this one recognised.";
      return { title: "The run failed", what: /[.!?]$/.test(what) ? what : `${what}.`, next };
    }
  }
}

function noPath(data, readOnly, offered) {
  const mine = `Ask about this pair yourself with Find a chain: ${AGAIN}.`;
  if (data.reason === "budget") {
    const budget = budgetWords(data.exhausted);
    let next = "Continue it below with more searches (it picks up where it stopped and searches nothing twice), or try via someone you think connects them.";
    if (readOnly) next = `Whoever started it can continue it with more ${budget}. ${mine}`;
    else if (!offered) next = `Start a new run with Find a chain: ${AGAIN}.`;
    return { title: "No chain found yet", what: `The ${budget} budget ran out before a chain was proven.`, next };
  }
  if (data.reason === "hop_limit") {
    const hops = typeof data.maxHops === "number" ? plural(data.maxHops, "hop", "hops") : "the max hops";
    return {
      title: "No chain found",
      what: `No chain within ${hops}: every further link would make the chain too long.`,
      next: `Start again with a higher Max hops (under Options): ${AGAIN}.`,
    };
  }
  const what = data.unseenEnd
    ? `No photo could be found showing ${String(data.unseenEnd)} with anyone, and every chain needs one.`
    : "Nobody new could be found to try next.";
  return {
    title: "No chain found",
    what,
    next: readOnly
      ? "Ask about this pair yourself with Find a chain, naming someone you think connects them in Via (under Options)."
      : "Name someone you think connects them in Try via below, and the run goes on through them.",
  };
}

// Why the server refused a request, and what to do about it (one sentence or two).
// `mine`: the run is one this browser started; `shared`: the page opened it with a share link.
export function refusal(msg, { mine = false, shared = false } = {}) {
  const said = inWords(msg.message);
  let next = NEXT[msg.code] || "Try again in a moment.";
  if (msg.code === "not_continuable" && msg.continuableWithHint === true) {
    next = "Name someone you think connects them in Try via, and the run goes on through them.";
  }
  if (msg.code === "above_ceiling" && msg.action === "continueRun") next = "The offer below now stays within what it allows.";
  switch (msg.code) {
    case "run_not_found":
      if (msg.action === "subscribe" || msg.action === "getRun" || !msg.action) {
        if (mine) {
          return "The server no longer keeps this run (a run is kept 30 minutes unless it asked for longer), or it ran on another server. Start it again with Find a chain.";
        }
        return shared
          ? "This share link opens no run here: the run may have expired, or it belongs to another server. Ask whoever shared it for a new link."
          : "This run is not open to this browser: it was started elsewhere, and its address carries no share link. Ask whoever started it for its share link.";
      }
      return "This run is no longer kept here. Start a new run with Find a chain.";
    case "read_only":
      return "This page is watching a run shared with it, and a share link only lets you watch. To start your own run, open the page without the link (a server that asks for a token needs yours, under Connection settings).";
    case "unauthorized":
      return "This server needs a token. Set yours under Connection settings.";
    case "internal_error":
      return "Something went wrong on the server's side. Try again in a moment.";
    default:
      return said ? `${/[.!?]$/.test(said) ? said : `${said}.`} ${next}` : next;
  }
}

const NEXT = {
  unknown_person: "Pick a suggested name, or another person of this world.",
  invalid_input: "Change it (under Options for the numbers) and try again.",
  above_ceiling: "Ask for less: this server allows no more.",
  too_many_runs: "Wait for one of your runs to end (or cancel one), then try again.",
  rate_limited: "Wait a moment, then try again.",
  run_in_progress: "Wait for the run to end, then continue it.",
  not_continuable: "Start a new run with Find a chain.",
  provider_unavailable: "Try again shortly.",
  message_too_large: "Reload the page and try again.",
  invalid_message: "Reload the page and try again.",
  invalid_json: "Reload the page and try again.",
  unknown_action: "Reload the page and try again.",
};

// What every answer says a link is, and is not (the `final` event's `caveat`; domain/wording.py).
export const PHOTO_CAVEAT = "A photo shows two people in the same place, not a relationship.";
// A photo whose caption or page names no event (evidence `event: null`; domain/wording.py NO_EVENT).
export const NO_EVENT = "Event: not named by the photo's caption or page.";

// Where a link's photo was taken, as the server read it from the photo's caption or page title:
// "Event: the premiere of Balto (1995)"; null from the server says none is named; an older server's
// events have no `event` and get no words (their caption is shown as it is).
export function eventWords(event) {
  if (typeof event === "string" && event) return `Event: ${event}`;
  return event === null ? NO_EVENT : null;
}

// A chain's bottleneck and cumulative confidence, each with what it means (local/console.py's words).
export function confidenceWords(data) {
  const edges = (Array.isArray(data.edges) ? data.edges : []).filter((e) => e && typeof e === "object");
  const weakest = edges.reduce((w, e) => (w === null || Number(e.confidence) < Number(w.confidence) ? e : w), null);
  const which = weakest && edges.length > 1 ? `: ${weakest.from} — ${weakest.to}` : "";
  const cumulative = Number(data.cumulativeConfidence);
  const product = edges.map((e) => pct(e.confidence)).join(" × ");
  return [
    `Bottleneck ${Number(data.bottleneckConfidence).toFixed(1)}: the least sure link${which}; a chain is as sure as its weakest photo.`,
    edges.length > 1
      ? `Cumulative ${cumulative.toFixed(3)}: how sure every link is at once, taking them as independent (${product}).`
      : `Cumulative ${cumulative.toFixed(3)}: the one link's confidence.`,
  ];
}
