// Evidence cards: one per photo, listing everyone proven in it; the chain's photos first, a page at a
// time. Also the card of one hop of the final path.
import { $, el, photoUrl, sourceLink, thumbnail } from "./dom.js";
import { number, pct, plural } from "./format.js";
import { page } from "./state.js";
import { eventWords } from "./words.js";

const PEOPLE_SHOWN = 4; // names listed on a card before "+N more"

export const cardsPage = () => (window.matchMedia("(max-width: 640px)").matches ? 6 : 12);

export function renderCards() {
  const view = page.view;
  const pairs = view.highlightedPairs();
  const onPathKeys = new Set(view.highlighted().flat());
  const photos = [...view.photos.values()];
  for (const photo of photos) {
    let rank = Infinity;
    for (const pair of photo.links.keys()) {
      const cited = view.cited.get(pair);
      if (pairs.has(pair) && (!cited || cited === photo.id)) rank = Math.min(rank, pairs.get(pair));
    }
    if (photo.rank !== rank) photo.dirty = true;
    photo.rank = rank;
    if (photo.dirty) renderCard(photo, onPathKeys);
  }
  // The chain's photos first (in chain order), then the newest.
  photos.sort((p, q) => p.rank - q.rank || q.order - p.order);
  const limit = Math.max(view.cardLimit, photos.filter((p) => p.rank < Infinity).length);
  photos.forEach((photo, i) => { photo.element.hidden = i >= limit; });
  $("cards").replaceChildren(...photos.map((p) => p.element));
  const more = $("more-cards");
  const hidden = Math.max(0, photos.length - limit);
  more.hidden = hidden === 0;
  const size = cardsPage();
  more.textContent = hidden > size ? `Show ${size} more of ${hidden} photos` : `Show ${plural(hidden, "more photo", "more photos")}`;
  const links = new Set(photos.flatMap((p) => [...p.links.keys()]));
  $("evidence-count").textContent = photos.length
    ? `(${photos.length} ${photos.length === 1 ? "photo" : "photos"} proving ${links.size} ${links.size === 1 ? "link" : "links"})`
    : "";
}

function renderCard(photo, onPathKeys) {
  photo.dirty = false;
  if (!photo.element) {
    photo.element = el("article", "card");
    photo.element.dataset.photo = photo.id;
    photo.thumb = thumbnail(photo.imageUrl, photo.pageUrl, photo.title || "Photo");
  }
  const article = photo.element;
  article.dataset.links = JSON.stringify([...photo.links.keys()].sort());
  article.classList.toggle("on-path", photo.rank < Infinity);
  const people = [...photo.people.values()].sort((p, q) =>
    Number(onPathKeys.has(q.key)) - Number(onPathKeys.has(p.key)) ||
    (q.confidence ?? 0) - (p.confidence ?? 0) || p.name.localeCompare(q.name));
  const shown = photo.expanded ? people : people.slice(0, PEOPLE_SHOWN);
  const list = el("ul", "people");
  for (const p of shown) list.append(person(p.name, p.confidence, p.key, onPathKeys.has(p.key)));
  const body = el("div", "card-body");
  body.append(list);
  if (shown.length < people.length) {
    const more = el("button", "more-people", `+${people.length - shown.length} more`);
    more.type = "button";
    more.addEventListener("click", () => {
      photo.expanded = true;
      renderCard(photo, onPathKeys);
    });
    body.append(more);
  }
  appendEvent(body, photo.event);
  appendCaption(body, photo.title);
  const meta = el("p", "card-meta", `${photo.links.size} ${photo.links.size === 1 ? "link" : "links"}`);
  if (photo.provenAt) meta.append(` · ${provenLabel(photo.provenAt)}`);
  const source = pageLink(photo.pageUrl, photo.imageUrl);
  if (source) meta.append(" · ", source);
  body.append(meta);
  article.replaceChildren(...(photo.thumb ? [photo.thumb] : []), body);
}

function person(name, confidence, key, onPath) {
  const row = el("li", onPath ? "person on-path" : "person");
  if (key) row.dataset.key = key;
  row.append(el("span", "name", name), el("span", "confidence", confidence === null ? "" : pct(confidence)));
  return row;
}

// A hop of the final path: its photo and both people's confidences.
export function hopCard(edge) {
  const ev = edge.evidence && typeof edge.evidence === "object" ? edge.evidence : {};
  const article = el("article", "card on-path");
  const thumb = thumbnail(ev.imageUrl, ev.pageUrl, ev.title ? `Photo: ${ev.title}` : `Photo of ${edge.from} and ${edge.to}`, true);
  const body = el("div", "card-body");
  const list = el("ul", "people");
  list.append(person(edge.from, number(ev.confidenceA), null, false), person(edge.to, number(ev.confidenceB), null, false));
  body.append(list);
  appendEvent(body, ev.event);
  appendCaption(body, ev.title);
  const source = pageLink(ev.pageUrl, ev.imageUrl);
  if (source || ev.earlierRun) {
    const meta = el("p", "card-meta");
    if (ev.earlierRun) meta.append(provenLabel(ev.provenAt), source ? " · " : "");
    if (source) meta.append(source);
    body.append(meta);
  }
  article.replaceChildren(...(thumb ? [thumb] : []), body);
  return article;
}

// A link read from the deployment's evidence graph: when an earlier run proved it.
function provenLabel(provenAt) {
  return `proven ${String(provenAt).slice(0, 10)} by an earlier run`;
}

// The event a photo comes from, in full (never clamped: it is what a link is about; text only).
// The photo's caption as the search result titled it (full text also as the tooltip).
function appendCaption(body, title) {
  if (!title) return;
  const caption = el("p", "caption", title);
  caption.title = title;
  body.append(caption);
}

function appendEvent(body, event) {
  const words = eventWords(event);
  if (words) body.append(el("p", event ? "event" : "event none", words));
}

// A link to the page the photo was found on (or to the image, when the page is not known).
export function pageLink(pageUrl, imageUrl) {
  const page = photoUrl(pageUrl);
  if (page) return sourceLink(page, "the photo's page");
  const image = photoUrl(imageUrl);
  return image ? sourceLink(image, "the photo") : null;
}
