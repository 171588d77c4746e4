import { $, el, setStatus } from "./dom.js";
import { usesThisServer } from "./settings.js";
import { page } from "./state.js";

// The sandbox world's example pair and names suggested as you type, and the names an `unknown_person`
// error suggests. The local server answers /api/world and /api/names about its sandbox world (local/world_info.py). The
// deployed API searches the live web, which has no list of names: a page talking to it suggests none,
// and says so.
export const world = { info: null };
const NAMES_SHOWN = 8;
const SUGGEST_AFTER_MS = 120; // typing pauses this long before the server is asked

export async function loadWorld() {
  world.info = null;
  if (usesThisServer() && location.host) {
    try {
      const response = await fetch("/api/world", { headers: { Accept: "application/json" } });
      const info = response.ok ? await response.json() : null;
      world.info = info && typeof info === "object" && info.suggestions === true ? info : null;
    } catch {
      world.info = null; // not the local server (or it went away): no suggestions
    }
  }
  showWorld();
}

function showWorld() {
  const line = $("world");
  line.replaceChildren();
  const info = world.info;
  const example = info && info.example && typeof info.example === "object" ? info.example : null;
  const a = example ? String(example.personA || "") : "";
  const b = example ? String(example.personB || "") : "";
  $("person-a").placeholder = a ? `e.g. ${a}` : "a person's name";
  $("person-b").placeholder = b ? `e.g. ${b}` : "another person's name";
  if (info) {
    const people = Number(info.people);
    const size = Number.isFinite(people) ? ` · ${people.toLocaleString("en")} ${people === 1 ? "person" : "people"}` : "";
    line.append(`Sandbox world ${String(info.world || "")}${size} · names are suggested as you type`);
    if (a && b) {
      const button = el("button", null, `${a} → ${b}`);
      button.type = "button";
      button.id = "try-example";
      button.title = "Fill in this world's example pair";
      button.addEventListener("click", () => {
        $("person-a").value = a;
        $("person-b").value = b;
        nameBoxes.forEach((box) => box.close());
        $("start").focus();
      });
      line.append(" · try ", button);
    }
  } else {
    line.append(
      usesThisServer()
        ? "No name suggestions: this server has no sandbox world to suggest from."
        : "No name suggestions: the API in the connection settings searches the live web, where any name can be tried.",
    );
  }
  line.hidden = false;
}

// A combobox over one name field: suggestions from the world as the user types, keyboard and pointer.
class NameBox {
  constructor(input, list) {
    this.input = input;
    this.list = list;
    this.timer = null;
    this.request = null;
    this.active = -1;
    this.names = [];
    input.addEventListener("input", () => this.changed());
    input.addEventListener("keydown", (event) => this.key(event));
    input.addEventListener("blur", () => this.close());
    list.addEventListener("mousedown", (event) => event.preventDefault()); // keep the focus in the field
    list.addEventListener("click", (event) => {
      const option = event.target instanceof Element ? event.target.closest("li[data-index]") : null;
      if (option) this.pick(Number(option.dataset.index));
    });
  }

  changed() {
    clearTimeout(this.timer);
    const text = this.input.value.trim();
    if (!world.info || text.length < 2) {
      this.close();
      return;
    }
    this.timer = setTimeout(() => this.ask(text), SUGGEST_AFTER_MS);
  }

  async ask(text) {
    if (this.request) this.request.abort();
    const request = new AbortController();
    this.request = request;
    try {
      const query = `q=${encodeURIComponent(text)}&limit=${NAMES_SHOWN}`;
      const response = await fetch(`/api/names?${query}`, { signal: request.signal });
      const data = response.ok ? await response.json() : null;
      if (request !== this.request || this.input.value.trim() !== text) return; // the user typed on
      const names = data && Array.isArray(data.names) ? data.names.map(String) : [];
      this.show(names.length === 1 && names[0] === text ? [] : names);
    } catch {
      // aborted by a newer request, or the server went away: nothing to show
    }
  }

  show(names) {
    this.names = names;
    this.active = -1;
    this.list.replaceChildren();
    names.forEach((name, index) => {
      const option = el("li", null, name);
      option.id = `${this.list.id}-${index}`;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.dataset.index = String(index);
      this.list.append(option);
    });
    const open = names.length > 0 && document.activeElement === this.input;
    this.list.hidden = !open;
    this.input.setAttribute("aria-expanded", String(open));
    this.input.removeAttribute("aria-activedescendant");
  }

  key(event) {
    const open = !this.list.hidden;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!open) {
        if (this.names.length) this.show(this.names);
        return;
      }
      event.preventDefault();
      // Positions 0 … n-1 are the names, n the field as typed; the arrows cycle through them.
      const n = this.names.length;
      const at = this.active < 0 ? n : this.active;
      this.highlight((at + (event.key === "ArrowDown" ? 1 : n)) % (n + 1));
    } else if (event.key === "Enter" && open && this.active >= 0) {
      event.preventDefault(); // pick the name; the form is submitted by the next Enter
      this.pick(this.active);
    } else if (event.key === "Escape" && open) {
      event.preventDefault();
      this.close();
    }
  }

  highlight(index) {
    // names.length stands for "none": the field itself, as typed
    this.active = index < this.names.length ? index : -1;
    [...this.list.children].forEach((option, i) => option.setAttribute("aria-selected", String(i === this.active)));
    if (this.active >= 0) {
      const option = this.list.children[this.active];
      this.input.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    } else {
      this.input.removeAttribute("aria-activedescendant");
    }
  }

  pick(index) {
    const name = this.names[index];
    if (name === undefined) return;
    this.input.value = name;
    this.close();
  }

  close() {
    clearTimeout(this.timer);
    if (this.request) this.request.abort();
    this.request = null;
    this.active = -1;
    this.list.hidden = true;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }
}

const nameBoxes = [];

export function installNameBoxes() {
  nameBoxes.push(
    new NameBox($("person-a"), $("suggest-a")),
    new NameBox($("person-b"), $("suggest-b")),
    new NameBox($("opt-via"), $("suggest-opt-via")),
    new NameBox($("try-via"), $("suggest-try-via")),
  );
}

// unknown_person names the closest people the world has, per field: one button each fills it in.
export function showDidYouMean(suggestions) {
  const box = $("did-you-mean");
  box.replaceChildren();
  const fields = [["personA", "person-a", "From"], ["personB", "person-b", "To"], ["via", page.viaField, "Via"]];
  for (const [field, inputId, label] of fields) {
    const names = suggestions && Array.isArray(suggestions[field]) ? suggestions[field].map(String) : [];
    if (!names.length) continue;
    const line = el("p", null, `${label}: did you mean`);
    for (const name of names.slice(0, 5)) {
      const button = el("button", null, name);
      button.type = "button";
      button.addEventListener("click", () => {
        $(inputId).value = name;
        box.hidden = true;
        $("error").hidden = true;
        const again = inputId === "try-via" ? "continue-via" : "start";
        setStatus(again === "start" ? "Ready: press Find a chain." : "Ready: press Try via.");
        $(again).focus();
      });
      line.append(" ", button);
    }
    line.append("?");
    box.append(line);
  }
  box.hidden = box.children.length === 0;
}
