// A file the console builds in the page (a Markdown report, a CSV table) handed to the browser as a download.

import { h } from "./dom.js";

/** Save `parts` (strings or Blobs) as `name` of MIME `type`. */
export function saveFile(name, parts, type) {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
