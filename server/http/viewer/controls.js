// The panel's query options: connectivity, corner cutting, snapping,
// clearance, and for each area the mask has an "enabled" box and a step
// cost. options() reads them in the shape requests.js takes; every change
// is reported to onChange, which runs the next queries with them.

import { areaCss } from "./colours.js";
import { areaIdsOf } from "./wire.js";

const $ = (selector) => document.querySelector(selector);

export class Controls {
  constructor(onChange) {
    this.onChange = onChange;
    this.areaRows = $("#areas tbody");
    this.areaIds = [];
    for (const id of ["#connectivity", "#corner-cutting", "#snap", "#clearance"]) {
      $(id).addEventListener("change", () => onChange());
    }
    const clearance = $("#clearance");
    const label = () => { $("#clearance-value").textContent = Number(clearance.value).toFixed(1); };
    clearance.addEventListener("input", label);
    label();
  }

  /** One row per area present (areasPresent: MaskInfo's uint64 bit set), area 0 left out. */
  setAreas(areasPresent) {
    this.areaIds = areaIdsOf(areasPresent).filter((id) => id !== 0);
    this.areaRows.replaceChildren(...this.areaIds.map((id) => {
      const row = document.createElement("tr");
      row.innerHTML = `<td><input type="checkbox" id="area-on-${id}" checked></td>
        <td><span class="swatch" style="background:${areaCss(id)}"></span></td>
        <td>area ${id}</td>
        <td><input type="number" id="area-cost-${id}" min="1" max="255" value="1"
             title="step cost of entering area ${id}, 1..255"></td>`;
      row.querySelectorAll("input").forEach((input) => {
        input.addEventListener("change", () => this.onChange());
      });
      return row;
    }));
  }

  /** The options as requests.js takes them. enabledAreas: null when all are ticked. */
  options() {
    const enabled = this.areaIds.filter((id) => $(`#area-on-${id}`).checked);
    const areaCosts = {};
    for (const id of enabled) {
      const cost = Math.round(Number($(`#area-cost-${id}`).value));
      areaCosts[id] = Number.isFinite(cost) ? Math.min(Math.max(cost, 1), 255) : 1;
    }
    return {
      enabledAreas: enabled.length === this.areaIds.length ? null : enabled,
      areaCosts,
      connectivity: $("#connectivity").value,
      allowCornerCutting: $("#corner-cutting").checked,
      snapToReachable: $("#snap").checked,
      clearance: Number($("#clearance").value),
    };
  }
}
