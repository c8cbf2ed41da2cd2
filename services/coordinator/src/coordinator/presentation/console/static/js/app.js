// The console: a hash router over its pages, the language and colour switches and the API key prompt.

import { setApiKey, apiKey, whenUnauthorized } from "./api.js";
import { CONVENTIONS, convention, setConvention } from "./colors.js";
import { LANGUAGES, lang, setLang, t } from "./i18n.js";
import { h, mount } from "./dom.js";
import { errorText } from "./format.js";
import { newResearchPage } from "./pages/new.js";
import { livePage } from "./pages/live.js";
import { sessionPage } from "./pages/session.js";
import { historyPage } from "./pages/history.js";
import { scorecardPage } from "./pages/scorecard.js";
import { batchesPage } from "./pages/batches.js";
import { watchlistsPage } from "./pages/watchlists.js";

const ROUTES = {
  new: newResearchPage,
  live: livePage,
  session: sessionPage,
  history: historyPage,
  scorecard: scorecardPage,
  batches: batchesPage,
  watchlists: watchlistsPage,
};

const main = document.getElementById("main");
let current = null; // the page's cleanup (e.g. closing an event stream)

function parseRoute() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  const [name, ...rest] = path.split("/");
  const id = rest.join("/");
  return { name: ROUTES[name] ? name : "new", id: id ? decodeURIComponent(id) : "", query: new URLSearchParams(query || "") };
}

let first = true;

async function render() {
  if (current) current();
  current = null;
  const route = parseRoute();
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.route === route.name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  // Each render draws into a view of its own: a page still loading when the reader moves on (its requests answer
  // later) fills its own detached view, never the page that replaced it.
  const view = h("div", { class: "view" });
  mount(main, view);
  mount(view, h("p", { class: "status", role: "status" }, t("loading")));
  try {
    const cleanup = (await ROUTES[route.name](view, route)) || null;
    if (view.isConnected) current = cleanup;
    else if (cleanup) cleanup(); // replaced while it loaded: stop what it started
  } catch (error) {
    mount(view, h("h1", {}, t("title")), h("p", { class: "error", role: "alert" }, errorText(error)));
  }
  if (!first && !document.querySelector("dialog[open]")) main.focus(); // a new page: reading starts at its top
  first = false;
}

export function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

function labels() {
  document.title = t("title");
  const set = (id, key) => (document.getElementById(id).textContent = t(key));
  set("brand", "title");
  set("nav-new", "nav.new");
  set("nav-history", "nav.history");
  set("nav-scorecard", "nav.scorecard");
  set("nav-watchlists", "nav.watchlists");
  set("nav-batches", "nav.batches");
  set("lang-label", "nav.language");
  set("colors-label", "nav.colors");
  colorOptions();
  set("key-button", "nav.key");
  set("skip-link", "nav.skip");
  set("key-title", "key.title");
  set("key-explain", "key.explain");
  set("key-label", "key.label");
  set("key-save", "key.save");
  set("key-forget", "key.forget");
  set("key-cancel", "key.cancel");
  set("footer", "footer");
}

function colorOptions() {
  const select = document.getElementById("colors-select");
  mount(select, CONVENTIONS.map((code) => h("option", { value: code, selected: code === convention() }, t(`colors.${code}`))));
}

function setUpColors() {
  const select = document.getElementById("colors-select");
  select.addEventListener("change", () => {
    setConvention(select.value);
    render();
  });
}

function setUpLanguage() {
  const select = document.getElementById("lang-select");
  mount(select, Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, selected: code === lang() }, name)));
  select.addEventListener("change", () => {
    setLang(select.value);
    labels();
    render();
  });
}

const dialog = document.getElementById("key-dialog");

export function askForKey() {
  if (dialog.open) return;
  document.getElementById("key-input").value = apiKey();
  dialog.showModal();
  document.getElementById("key-input").focus();
}

function setUpKeyPrompt() {
  document.getElementById("key-button").addEventListener("click", askForKey);
  document.getElementById("key-form").addEventListener("submit", () => {
    setApiKey(document.getElementById("key-input").value.trim());
    render();
  });
  document.getElementById("key-cancel").addEventListener("click", () => dialog.close());
  document.getElementById("key-forget").addEventListener("click", () => {
    setApiKey("");
    document.getElementById("key-input").value = "";
    dialog.close();
  });
  whenUnauthorized(askForKey);
}

setLang(lang());
labels();
setUpLanguage();
setUpColors();
setUpKeyPrompt();
window.addEventListener("hashchange", render);
render();
