// Uploading a level: an image dropped on the page, or chosen in the file
// input #upload-file (the same path), goes to UploadMask under the name in
// #upload-name, with the admin token (#admin-token, kept in the page's
// memory only) as "Authorization: Bearer". PNG is sent as such; other files
// (PGM, PBM, Moving AI .map) are left for the server to sniff.

import { unary } from "./connect.js";
import { bytesToBase64 } from "./wire.js";

const $ = (selector) => document.querySelector(selector);

/** A mask name ([A-Za-z0-9._/-], at most 128) from a file name: "Level 1.png" -> "Level-1". */
export function maskNameFromFile(fileName) {
  const base = fileName.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "");
  const name = base.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+/, "").replace(/-+$/, "");
  return name.slice(0, 128) || "mask";
}

/** UploadMask's request for a file's bytes. */
export function uploadRequest(name, fileName, bytes, rule) {
  const request = { name, image: bytesToBase64(bytes) };
  if (/\.png$/i.test(fileName)) request.format = "MASK_FORMAT_PNG";
  if (rule && rule !== "PIXEL_RULE_UNSPECIFIED") request.rule = rule;
  return request;
}

/**
 * Wires the drop target and the file input. onStatus(text) says what is
 * happening, onUploaded(MaskInfo) follows a success, onError(error) a failure.
 */
export function installUpload({ onStatus, onUploaded, onError }) {
  const send = async (file) => {
    try {
      const nameInput = $("#upload-name");
      if (!nameInput.value.trim()) nameInput.value = maskNameFromFile(file.name);
      const name = nameInput.value.trim();
      onStatus(`uploading ${file.name} as ${name}…`);
      const bytes = new Uint8Array(await file.arrayBuffer());
      const info = await unary("UploadMask", uploadRequest(name, file.name, bytes,
                                                         $("#upload-rule").value),
                               { token: $("#admin-token").value || undefined });
      onUploaded(info);
    } catch (error) {
      onError(error);
    }
  };
  const input = $("#upload-file");
  input.addEventListener("change", () => {
    if (input.files.length) send(input.files[0]);
    input.value = "";  // the same file again is a new upload
  });
  const page = document.body;
  page.addEventListener("dragover", (event) => {
    event.preventDefault();
    page.classList.add("drop-hover");
  });
  page.addEventListener("dragleave", () => page.classList.remove("drop-hover"));
  page.addEventListener("drop", (event) => {
    event.preventDefault();
    page.classList.remove("drop-hover");
    const file = event.dataTransfer?.files?.[0];
    if (file) send(file);
  });
}
