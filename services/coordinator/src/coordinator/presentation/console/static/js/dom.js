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

/** Replace the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}
