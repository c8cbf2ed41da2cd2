// Live research: each stage ticks as its event arrives; when the research ends the page opens its session page. The events seen are kept in sessionStorage, so a reload
// or a dropped connection resumes after the last one (?after=N): nothing is lost, nothing is shown twice.

import { call, followEvents, get } from "../api.js";
import { h, mount } from "../dom.js";
import { EXPERTS, confidence, errorText, expertError, num, price, seconds, signedPct, text } from "../format.js";
import { actionWord, enumWord, expertName, statusWord, t } from "../i18n.js";

const TERMINAL = new Set(["session.completed", "session.partial", "session.failed", "session.cancelled", "session.interrupted"]);
const store = (id) => `console.events.${id}`;

function stored(id) {
  try {
    return JSON.parse(sessionStorage.getItem(store(id)) || "[]");
  } catch {
    return [];
  }
}

/** A stage in words: an expert's name, the debate, the verdict; anything else as it is. */
function stageName(stage) {
  if (EXPERTS.includes(stage)) return expertName(stage);
  return ["debate", "verdict"].includes(stage) ? t(`stage.${stage}`) : text(stage);
}

/** A stop or target as the verdict event has it: its price and percent, or the percent alone. */
function levelWords(level, symbol) {
  if (!level) return t("none");
  const percent = signedPct(level.percent_from_entry);
  return typeof level.price === "number" ? `${price(level.price, symbol)} (${percent})` : percent;
}

export async function livePage(main, route) {
  const id = route.id;
  const session = await get(`/sessions/${encodeURIComponent(id)}`);
  const controller = new AbortController();
  const seen = stored(id);
  let lastSeq = seen.reduce((m, e) => Math.max(m, e.seq || 0), 0);
  let finished = false;

  const status = h("p", { id: "live-status", class: "status", role: "status" }, `${t("live.status")}: ${statusWord(session.status)}`);
  const note = h("p", { id: "live-note", class: "hint", "aria-live": "polite" });
  const stages = new Map();
  const row = (key, label) => {
    const state = h("span", { class: "state" }, t("stage.pending"));
    const detail = h("span", { class: "detail" });
    const li = h("li", { "data-stage": key, "data-state": "pending" }, h("span", { class: "name" }, label), state, detail);
    stages.set(key, { li, state, detail });
    return li;
  };
  const list = h("ul", { id: "stages", class: "stages" },
    session.experts.map((e) => row(e, expertName(e))), row("debate", t("stage.debate")), row("verdict", t("stage.verdict")));
  const log = h("ol", { id: "event-log", class: "event-log", "aria-label": t("live.events") });
  const verdict = h("div", { id: "live-verdict" });
  const cancel = h("button", { type: "button", id: "cancel-research" }, t("live.cancel"));
  const open = h("a", { href: `#/session/${encodeURIComponent(id)}`, id: "open-session", class: "button" }, t("live.open_session"));

  function tick(key, state, detail) {
    const stage = stages.get(key);
    if (!stage) return;
    stage.li.dataset.state = state;
    stage.state.textContent = t(`stage.${state}`);
    if (detail !== undefined) stage.detail.textContent = detail;
  }

  function apply(event) {
    const d = event.data || {};
    switch (event.type) {
      case "session.queued":
        status.textContent = `${t("live.status")}: ${t("live.queued", { position: d.position ?? "?" })}`;
        break;
      case "session.started":
        status.textContent = `${t("live.status")}: ${statusWord("running")}`;
        break;
      case "session.resumed":
        status.textContent = `${t("live.status")}: ${statusWord("running")}`;
        note.textContent = t("live.resumed", { stage: stageName(d.from_stage) });
        break;
      case "session.stalled":
        note.textContent = t("live.stalled", { seconds: d.seconds ?? "?" });
        break;
      case "expert.started":
        tick(d.expert, "running");
        break;
      case "expert.completed":
        tick(d.expert, "success", `${enumWord(d.signal)} · ${t("field.confidence")} ${confidence(d.confidence)} · ${seconds(d.duration_ms)}`);
        break;
      case "expert.failed":
        tick(d.expert, "failed", `${expertError(d.expert, d.message)} · ${seconds(d.duration_ms)}`);
        break;
      case "debate.started":
      case "verdict.started":
        tick(event.type.split(".")[0], "running");
        break;
      case "debate.completed":
        tick("debate", "success", `${enumWord(d.direction)} · ${t("field.confidence")} ${confidence(d.confidence)} · ${seconds(d.duration_ms)}`);
        break;
      case "verdict.completed":
        tick("verdict", "success", `${actionWord(d.action)} · ${num(d.position, 1)} % · ${seconds(d.duration_ms)}`);
        mount(verdict, h("p", { class: "verdict-line" },
          `${t("field.action")}: ${actionWord(d.action)} · ${t("field.position")}: ${num(d.position, 1)} % · ` +
          `${t("field.stop")}: ${levelWords(d.stop, session.symbol)} · ` +
          `${t("field.target")}: ${levelWords(d.target, session.symbol)} · ${t("field.horizon")}: ${enumWord(d.horizon)}`));
        break;
      case "debate.failed":
      case "verdict.failed":
        tick(event.type.split(".")[0], "failed", `${text(d.message)}`);
        break;
      case "debate.skipped":
      case "verdict.skipped":
        tick(event.type.split(".")[0], "skipped");
        break;
      default:
        break;
    }
    if (TERMINAL.has(event.type)) {
      finished = true;
      status.dataset.status = d.status || event.type.split(".")[1];
      if (["cancelled", "interrupted"].includes(status.dataset.status)) {
        for (const [key, stage] of stages) if (["pending", "running"].includes(stage.li.dataset.state)) tick(key, status.dataset.status);
      }
      status.textContent = `${t("live.status")}: ${statusWord(status.dataset.status)}`;
      cancel.remove();
      main.dataset.finished = "true";
      if (!controller.signal.aborted) location.replace(`#/session/${encodeURIComponent(id)}`);
    }
  }

  function record(event) {
    if (event.type === "snapshot") {
      if (event.data.status && !finished) status.textContent = `${t("live.status")}: ${statusWord(event.data.status)}`;
      return;
    }
    // Already shown; a terminal event made from the status carries the number reached, and still ends the page.
    if (event.seq !== null && event.seq <= lastSeq && !TERMINAL.has(event.type)) return;
    if (event.seq !== null) {
      lastSeq = event.seq;
      seen.push(event);
      sessionStorage.setItem(store(id), JSON.stringify(seen));
    }
    log.append(h("li", { "data-seq": event.seq ?? "", "data-type": event.type }, `${event.seq ?? "·"} ${event.type}`));
    apply(event);
  }

  cancel.addEventListener("click", async () => {
    try {
      await call(`/sessions/${encodeURIComponent(id)}/cancel`, { method: "POST" });
      note.textContent = t("live.cancelled");
    } catch (error) {
      note.textContent = errorText(error);
    }
  });

  mount(main,
    h("h1", {}, t("live.heading", { symbol: session.symbol })),
    status, h("div", { class: "actions" }, cancel, open), note, list, verdict,
    h("details", { class: "events" }, h("summary", {}, t("live.events")), log));

  for (const event of seen) {
    log.append(h("li", { "data-seq": event.seq, "data-type": event.type }, `${event.seq} ${event.type}`));
    apply(event);
  }

  (async () => {
    let delay = 500;
    while (!finished && !controller.signal.aborted) {
      try {
        await followEvents(id, lastSeq, record, controller.signal);
        delay = 500;
      } catch (error) {
        if (controller.signal.aborted) return;
        note.textContent = `${errorText(error)} ${t("live.reconnecting", { after: lastSeq })}`;
      }
      if (!finished && !controller.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 8000);
      }
    }
  })();

  return () => controller.abort();
}
