// The coordinator's API as the console uses it: JSON calls and event streams (a session's, a batch's), both with
// fetch so the API key (AUTH_MODE=api_key) travels in the Authorization header, never in a URL. The key lives in
// sessionStorage: it is gone when the tab closes.

import { EventStreamParser } from "./sse.js";

export const API = "/api/v1/coordinator";
const KEY = "console.apiKey";

export function apiKey() {
  return sessionStorage.getItem(KEY) || "";
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

/** A refused call: the HTTP status and the problem's code, detail and Retry-After (seconds), when given. */
export class ApiError extends Error {
  constructor(status, problem, retryAfter) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || "";
    this.title = problem.title || "";
    this.detail = problem.detail || "";
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/** The coordinator could not be reached at all. */
export class NetworkError extends Error {}

let onUnauthorized = () => {};

/** What to do on a 401 (ask for a key); set once by the app. */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

function headers(extra) {
  const all = { Accept: "application/json", ...extra };
  const key = apiKey();
  if (key) all.Authorization = `Bearer ${key}`;
  return all;
}

async function problemOf(response) {
  const retry = response.headers.get("Retry-After");
  let problem = {};
  try {
    problem = await response.json();
  } catch {
    problem = { title: response.statusText };
  }
  const error = new ApiError(response.status, problem, retry !== null ? Number(retry) : null);
  if (response.status === 401) onUnauthorized(error);
  return error;
}

/** A JSON call; `body` is sent as JSON. Resolves to {status, body, headers}; a non-2xx answer throws ApiError. */
export async function call(path, { method = "GET", body, extraHeaders, signal } = {}) {
  let response;
  try {
    response = await fetch(API + path, {
      method,
      signal,
      headers: headers(body !== undefined ? { "Content-Type": "application/json", ...extraHeaders } : extraHeaders),
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new NetworkError(String(error));
  }
  if (!response.ok) throw await problemOf(response);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

export async function get(path, options) {
  return (await call(path, options)).body;
}

/**
 * Follow an event stream of the API (`path` under /api/v1/coordinator): `onEvent({seq, type, data})` for each
 * event, in order, until the stream ends or `signal` aborts. Resolves when the server closed the stream; rejects on
 * a dropped connection (the caller resumes or polls).
 */
export async function followStream(path, onEvent, signal) {
  let response;
  try {
    response = await fetch(API + path, {
      headers: headers({ Accept: "text/event-stream" }),
      signal,
      cache: "no-store",
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new NetworkError(String(error));
  }
  if (!response.ok) throw await problemOf(response);
  const parser = new EventStreamParser((raw) => {
    let data = {};
    try {
      data = raw.data ? JSON.parse(raw.data) : {};
    } catch {
      data = { text: raw.data };
    }
    onEvent({ seq: raw.id !== null && raw.id !== "" ? Number(raw.id) : null, type: raw.event, data });
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}

/** A session's events after event number `after` (followStream): a dropped connection resumes after the last. */
export function followEvents(sessionId, after, onEvent, signal) {
  return followStream(`/sessions/${encodeURIComponent(sessionId)}/events?after=${after}`, onEvent, signal);
}
