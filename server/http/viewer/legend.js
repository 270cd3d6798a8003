// The legend under the canvas: one row per smoothing mode with a "show"
// box, the mode's colour, and its answer's length, cost, reason (the
// PathReason, or the error's code) and latency. Element ids carry the mode:
// #path-reason-beautify, #path-show-any-angle...

import { PATH_COLOURS } from "./colours.js";
import { modeKey, SMOOTHING_MODES } from "./requests.js";
import { reasonLabel } from "./wire.js";

const $ = (selector) => document.querySelector(selector);

/** Builds the rows; onToggle() follows a click on a "show" box. */
export function buildLegend(onToggle) {
  $("#legend tbody").replaceChildren(...SMOOTHING_MODES.map((mode) => {
    const key = modeKey(mode);
    const row = document.createElement("tr");
    row.id = `path-row-${key}`;
    row.innerHTML = `<td><input type="checkbox" id="path-show-${key}" checked
                      title="draw this mode's path"></td>
      <td><span class="swatch" style="background:${PATH_COLOURS[mode]}"></span></td>
      <td>${key}</td><td id="path-length-${key}"></td><td id="path-cost-${key}"></td>
      <td id="path-reason-${key}"></td><td id="path-ms-${key}"></td>`;
    row.querySelector("input").addEventListener("change", onToggle);
    return row;
  }));
}

/** The modes whose "show" box is ticked. */
export function shownModes() {
  return SMOOTHING_MODES.filter((mode) => $(`#path-show-${modeKey(mode)}`).checked);
}

/**
 * Fills a mode's row from its answer: {response, latencyMs}, {error}, or
 * undefined (asked, or not asked yet: an empty row).
 */
export function showAnswer(mode, answer) {
  const key = modeKey(mode);
  const cell = (name) => $(`#path-${name}-${key}`);
  const response = answer?.response;
  cell("length").textContent = response?.found ? (response.length ?? 0).toFixed(1) : "";
  cell("cost").textContent = response?.found ? (response.cost ?? 0).toFixed(1) : "";
  cell("ms").textContent = answer?.latencyMs !== undefined ? answer.latencyMs.toFixed(1) : "";
  const reason = cell("reason");
  reason.className = "";
  reason.title = "";
  delete reason.dataset.reason;
  reason.textContent = "";
  if (answer?.error) {
    reason.textContent = answer.error.code ?? "error";
    reason.title = answer.error.message;
    reason.className = "error";
  } else if (response) {
    reason.textContent = reasonLabel(response.reason);
    reason.title = response.reason ?? "";
    reason.dataset.reason = response.reason ?? "PATH_REASON_UNSPECIFIED";
    if (!response.found) reason.className = "no-path";
  }
}
