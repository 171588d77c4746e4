// Going on after a budget ran out: why the run may go on, a Continue button and a Try via… field.
import { $ } from "./dom.js";
import { plural } from "./format.js";
import { page } from "./state.js";

export function showContinue(data) {
  const more = page.view.ownSearches ?? 20;
  const button = $("continue");
  button.textContent = `Continue (+${plural(more, "search", "searches")})`;
  button.hidden = data.continuable !== true;
  $("continue-why").textContent = String(data.why || "");
  $("continue-form").hidden = false;
}

export function hideContinue() {
  $("continue-form").hidden = true;
}
