// The pieces every form of the console is made of: a labelled field with its hint, a line for the problem a call
// answered, and a submit handler that disables the button while the call runs.

import { h } from "./dom.js";
import { errorText } from "./format.js";

/** A label, its input and (when given) a hint the input is described by. */
export function field(id, label, input, hint) {
  if (hint) input.setAttribute("aria-describedby", `${id}-help`);
  return h("div", { class: "field" }, h("label", { for: id }, label), input, hint ? h("p", { class: "hint", id: `${id}-help` }, hint) : null);
}

/** A problem line (role=alert), empty until a call is refused. */
export function problemLine(id) {
  return h("p", { class: "error", role: "alert", id });
}

/** On `form`'s submit: `action()` with `button` disabled; a refusal is written in `problem` (its detail, in words). */
export function onSubmit(form, button, problem, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    button.disabled = true;
    try {
      await action();
    } catch (error) {
      problem.textContent = errorText(error);
    } finally {
      button.disabled = false;
    }
  });
}

/** A button that runs `action()` on click, disabled meanwhile, a refusal written in `problem`. */
export function actionButton(attrs, label, problem, action) {
  const button = h("button", { type: "button", ...attrs }, label);
  button.addEventListener("click", async () => {
    problem.textContent = "";
    button.disabled = true;
    try {
      await action();
    } catch (error) {
      problem.textContent = errorText(error);
    } finally {
      if (button.isConnected) button.disabled = false;
    }
  });
  return button;
}
