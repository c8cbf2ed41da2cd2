// Building the page without HTML strings: every text goes in as a text node (textContent), never as markup.
// That is the console's rule for anything a model or a data source wrote.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "text") {
      el.textContent = String(value);
    } else if (name === "value" && "value" in el) {
      el.value = value;
    } else if (name === "checked" || name === "disabled" || name === "selected") {
      el[name] = Boolean(value);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An element: h("p", {class: "x"}, "text", child, [more]). Strings become text nodes. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element (the reliability chart). */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Append `children` to `el`, skipping null, undefined and false (the DOM's own append would write "null"). */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/** Replace the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const FOLD_AT = 320; // characters: a longer text is shown folded to a few lines, whole in the page

/** A model's or a source's text, whole (never cut), as a paragraph of class `narrative`; a long one folded to a few
 * lines with a "more" button that unfolds it. `labels` {more, less} are the button's words. */
export function longText(value, labels, attrs = {}) {
  const body = h("p", { ...attrs, class: `narrative${attrs.class ? ` ${attrs.class}` : ""}` }, value);
  if (String(value).length <= FOLD_AT) return body;
  body.classList.add("folded");
  const toggle = h("button", { type: "button", class: "small fold-toggle no-print", "aria-expanded": "false" }, labels.more);
  toggle.addEventListener("click", () => {
    const folded = body.classList.toggle("folded");
    toggle.setAttribute("aria-expanded", String(!folded));
    toggle.textContent = folded ? labels.more : labels.less;
  });
  return h("div", { class: "fold" }, body, toggle);
}
