// Small DOM helpers (text only: data from the server never becomes markup), the status line, and the
// one place sandbox photo URLs are mapped.

export const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function svg(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  return node;
}

export function setStatus(text) {
  $("status").textContent = text;
}

export function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = false;
}

// ---- photos ----------------------------------------------------------------------------------------
// Sandbox evidence names a host that can never resolve; the local server renders those photos by id
// under /photos/ (local/server/http_static.py). Live evidence URLs are used as they are.
const SANDBOX_PHOTOS = "https://sandbox.visual-degrees.invalid/photos/";

export function photoUrl(url) {
  if (typeof url !== "string") return null;
  if (url.startsWith(SANDBOX_PHOTOS)) return "/photos/" + url.slice(SANDBOX_PHOTOS.length);
  return safeWebUrl(url);
}

function safeWebUrl(url) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

export function thumbnail(imageUrl, pageUrl, alt, eager) {
  const image = photoUrl(imageUrl);
  if (!image) return null;
  const img = el("img");
  img.src = image;
  img.alt = alt;
  if (!eager) img.loading = "lazy";
  img.referrerPolicy = "no-referrer";
  const link = el("a", "thumb");
  link.href = photoUrl(pageUrl) || image;
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.append(img);
  return link;
}

export function sourceLink(href, label = "source") {
  const link = el("a", "source", label);
  link.href = href;
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  return link;
}
