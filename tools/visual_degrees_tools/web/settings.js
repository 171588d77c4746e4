// Where the page connects (this server, or an API set in the connection settings) and the run this tab
// watches. The API URL persists; the token and the run (id, run token and the server's ceilings) live
// only as long as the tab. A run shared with the page (its link's share token, and the API the link
// names) decides where and how the page connects while it watches that run.
import { page } from "./state.js";

export const settings = {
  get url() { return localStorage.getItem("vd.wsUrl") || ""; },
  get token() { return sessionStorage.getItem("vd.apiToken") || ""; },
  save(url, token) {
    if (url) localStorage.setItem("vd.wsUrl", url); else localStorage.removeItem("vd.wsUrl");
    if (token) sessionStorage.setItem("vd.apiToken", token); else sessionStorage.removeItem("vd.apiToken");
  },
};

export function defaultWsUrl() {
  if (!location.host) return "";
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
}

// Where to connect, with which token: the settings' API and client token. While the page watches a run
// shared with it, the run's share token opens the connection (`?token=…&run=…`) where no client token
// is set, and a link naming another API gets only the share token, never this browser's client token.
export function endpoint() {
  const shared = page.shared;
  const own = settings.url || defaultWsUrl();
  if (shared && shared.api && shared.api !== own) return { url: shared.api, token: shared.token, run: shared.runId };
  if (shared && !settings.token) return { url: own, token: shared.token, run: shared.runId };
  return { url: own, token: settings.token, run: "" };
}

// The page talks to the server that served it (which also answers /api/world and /api/names).
export function usesThisServer() {
  return endpoint().url === defaultWsUrl();
}

export function savedRun() {
  try {
    const run = JSON.parse(sessionStorage.getItem("vd.run") || "null");
    if (!run || typeof run.runId !== "string" || typeof run.runToken !== "string") return null;
    return { ...run, ceilings: run.ceilings && typeof run.ceilings === "object" ? run.ceilings : null };
  } catch {
    return null;
  }
}

export function saveRun(run) {
  if (run) {
    const kept = { runId: run.runId, runToken: run.runToken, ceilings: run.ceilings || null };
    sessionStorage.setItem("vd.run", JSON.stringify(kept));
  } else {
    sessionStorage.removeItem("vd.run");
  }
}
