// A run's own address and its share link. `?run=ID` replays the run; its share token rides in the
// fragment (`#share=TOKEN`, and `&api=wss://…` when the run is on another API than the page's server),
// which browsers never send to a server: it stays out of request logs, proxies and Referer headers.
import { $ } from "./dom.js";
import { defaultWsUrl, settings } from "./settings.js";

const RUN_ID = /^[A-Za-z0-9_.:-]{1,64}$/; // as the protocol's runId

// The run the address names, with the share token and API its fragment carries; null if none.
export function linkedRun() {
  const runId = new URLSearchParams(location.search).get("run");
  if (!runId || !RUN_ID.test(runId)) return null;
  const fragment = new URLSearchParams(location.hash.slice(1));
  const share = fragment.get("share") || null;
  let api = fragment.get("api") || null;
  try {
    if (api && !["ws:", "wss:"].includes(new URL(api).protocol)) api = null;
  } catch {
    api = null;
  }
  return { runId, share, api };
}

function address(runId) {
  const url = new URL(location.href);
  url.search = `?run=${encodeURIComponent(runId)}`;
  url.hash = "";
  return url;
}

// Show the run's own address in the address bar (a reload replays it), keeping a share fragment that
// names this very run.
export function showRunAddress(runId) {
  const link = linkedRun();
  const url = address(runId);
  if (link && link.runId === runId) url.hash = location.hash;
  if (url.href !== location.href) history.replaceState(null, "", url.href);
}

// The link that lets anyone watch the run (and nothing more); the API goes with it when it is not the
// page's own server.
export function shareLink(runId, shareToken, api) {
  const url = address(runId);
  const fragment = new URLSearchParams({ share: shareToken });
  if (api && api !== defaultWsUrl()) fragment.set("api", api);
  url.hash = fragment.toString();
  return url.href;
}

// The share box under the status line: the run's share link, ready to copy; hidden without a token.
export function renderShare(run) {
  const box = $("share");
  if (!run || !run.shareToken) {
    box.hidden = true;
    return;
  }
  const api = run.api !== undefined ? run.api : settings.url;
  $("share-url").value = shareLink(run.runId, run.shareToken, api);
  $("share-note").textContent = run.readOnly
    ? "This run was shared with you: you can watch it, and pass the link on."
    : "Anyone with this link can watch this run and read its evidence, nothing more.";
  box.hidden = false;
}

export function installShare() {
  $("share-copy").addEventListener("click", async () => {
    const field = $("share-url");
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      $("share-copy").textContent = "Copied";
    } catch {
      $("share-copy").textContent = "Select and copy";
    }
    setTimeout(() => { $("share-copy").textContent = "Copy link"; }, 2000);
  });
}
