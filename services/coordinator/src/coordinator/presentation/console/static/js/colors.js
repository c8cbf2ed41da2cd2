// Which colour means up: red up / green down (the A-share convention) in the Chinese view and for A-shares, green up
// elsewhere; the reader may fix either (kept in localStorage).

import { lang } from "./i18n.js";

const STORE = "console.colors";
export const CONVENTIONS = ["auto", "red_up", "green_up"];
const RED = "#c62828";
const GREEN = "#17733a";

/** Whether `symbol` is a mainland A-share (Shanghai, Shenzhen, Beijing). */
export function isAShare(symbol) {
  return /\.(SH|SZ|BJ)$/i.test(symbol || "");
}

export function convention() {
  const chosen = localStorage.getItem(STORE);
  return CONVENTIONS.includes(chosen) ? chosen : "auto";
}

export function setConvention(value) {
  localStorage.setItem(STORE, CONVENTIONS.includes(value) ? value : "auto");
}

/** {up, down} colours for `symbol` under the reader's convention. */
export function upDown(symbol) {
  const chosen = convention();
  const redUp = chosen === "red_up" || (chosen === "auto" && (lang() === "zh" || isAShare(symbol)));
  return redUp ? { up: RED, down: GREEN, redUp } : { up: GREEN, down: RED, redUp };
}
