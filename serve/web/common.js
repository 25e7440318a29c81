// What every step of the web app uses: the app's state, the REST API of
// docs/web.md (with the cookie the server set when the page was opened with
// ?token=), building elements, showing an error, formatting figures, and
// moving between the steps.

export const API = '/api/v1';
export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

export const state = {
  files: [],
  dataset: null,          // the summary of GET /datasets/ID
  inspection: null,       // its inspection, POST /datasets/ID/inspect
  attributes: {},         // column -> {role, hierarchy: null | {file} | {builder} | {rows}, settings: {job keys}}
  editing: null,          // the column whose hierarchy is in the editor
  preview: null,          // its last preview
  job: null,              // the job being run or shown: {id, spec, command}
  events: null,           // the EventSource of the running job
  result: null,
  secret: null,           // the fingerprint of the server's secret (GET /version), or null: no pseudonyms or shifts
};

export function el(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') e.textContent = value;
    else if (key === 'class') e.className = value;
    else if (key.startsWith('on')) e.addEventListener(key.slice(2), value);
    else e.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined) e.append(child);
  return e;
}

export function showError(message) {
  const box = $('#error');
  box.textContent = message;
  box.hidden = !message;
}

export async function api(path, options = {}) {
  const response = await fetch(API + path, { credentials: 'same-origin', ...options });
  const type = response.headers.get('Content-Type') || '';
  const body = type.startsWith('application/json') ? await response.json() : await response.text();
  if (!response.ok) {
    const message = body && body.error ? body.error : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
}

export async function guard(action) {
  showError('');
  try {
    await action();
  } catch (e) {
    showError(e.message);
  }
}

export const number = (x, digits = 4) =>
  x === null || x === undefined ? '–' : Number(x).toLocaleString('en', { maximumFractionDigits: digits });
export const percent = (x) =>
  x === null || x === undefined ? '–' : `${Number(100 * x).toLocaleString('en', { maximumSignificantDigits: 3 })} %`;
// The lines of a text area that are not blank, trimmed.
export const lines = (text) => text.split('\n').map((line) => line.trim()).filter(Boolean);
// NAME=VALUE lines as an object of numbers; `what` names them in errors.
export function assignments(text, what) {
  const out = {};
  for (const line of lines(text)) {
    const eq = line.lastIndexOf('=');
    const value = Number(line.slice(eq + 1).trim());
    if (eq <= 0 || line.slice(eq + 1).trim() === '' || !Number.isFinite(value))
      throw new Error(`${what}: '${line}' is not NAME=NUMBER`);
    out[line.slice(0, eq).trim()] = value;
  }
  return out;
}
// A definition list of [term, value] pairs.
export function figures(selector, pairs) {
  $(selector).replaceChildren(...pairs.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
}
export const levels = (t) => Object.entries(t).map(([a, l]) => `${a}=${l}`).join(', ');
export const sameTransformation = (a, b) =>
  a && b && Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => a[k] === b[k]);
// ---- steps -----------------------------------------------------------------

export function showStep(name) {
  for (const button of $$('.step')) {
    if (button.dataset.step === name) {
      button.disabled = false;
      button.setAttribute('aria-current', 'step');
    } else {
      button.removeAttribute('aria-current');
    }
  }
  for (const section of $$('main > section')) section.hidden = section.id !== `step-${name}`;
  document.body.dataset.step = name;
  const heading = $(`#step-${name} h2`);
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
}

export function enableSteps(...names) {
  for (const name of names) $(`.step[data-step="${name}"]`).disabled = false;
}
