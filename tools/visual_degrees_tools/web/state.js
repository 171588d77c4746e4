// What the page holds about the run it shows, shared by its parts, and the one redraw per frame
// (however many events arrive in it).

export const page = {
  // { runId, runToken, shareToken, ceilings, api, lastSeq, finished, resyncing, continuable, withHint,
  //   readOnly (a run shared with this page: watched, never cancelled or continued from here) }
  run: null,
  shared: null, // { runId, token, api }: the share link this page was opened with, while it watches that run
  pendingStart: null, // a startRun waiting for the connection (leaving a shared run reconnects first)
  view: null, // the RunView of the run shown (run_view.js)
  starting: false, // a startRun (or continueRun) is on its way and has had no answer yet
  continuing: false, // ... and it is a continueRun
  viaField: "opt-via", // the field a `via` suggestion fills in: the form's, or Try via…
};

const renderers = { cards() {}, graph() {}, view() {} };
let framePending = false;
let graphDirty = false;
let cardsDirty = false;
let viewDirty = false;

// Who draws: the cards, the graph (layout and all), and the graph's view (zoom, pan, labels).
export function onFrame(draw) {
  Object.assign(renderers, draw);
}

export function markDirty(graphChanged, cardsChanged) {
  graphDirty = graphDirty || graphChanged;
  cardsDirty = cardsDirty || cardsChanged;
  scheduleFrame();
}

export function scheduleView() {
  viewDirty = true;
  scheduleFrame();
}

function scheduleFrame() {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(() => {
    framePending = false;
    if (cardsDirty) { cardsDirty = false; renderers.cards(); }
    if (graphDirty) { graphDirty = false; viewDirty = false; renderers.graph(); }
    if (viewDirty) { viewDirty = false; renderers.view(); }
  });
}
