// deid serve's web app: open a table, give roles and hierarchies, choose
// the kind of job (anonymize, risk, suppress) and its settings, run,
// explore the result, download. Plain ES module, no
// framework; it speaks the REST API of docs/web.md with the cookie the
// server set when the page was opened with ?token=.

const API = '/api/v1';
const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
const ROLES = ['insensitive', 'quasi-identifying', 'sensitive', 'identifying'];
let previewSeq = 0;  // the latest hierarchy preview asked for

const state = {
  files: [],
  dataset: null,          // the summary of GET /datasets/ID
  attributes: {},         // column -> {role, hierarchy: null | {file} | {builder} | {rows}, settings: {job keys}}
  editing: null,          // the column whose hierarchy is in the editor
  preview: null,          // its last preview
  job: null,              // the job being run or shown: {id, spec, command}
  events: null,           // the EventSource of the running job
  result: null,
};

// ---- helpers ---------------------------------------------------------------

// The quality option as the job's quality section: "<model>-monotonic"
// selects a model's monotonic variant (docs/quality-models.md).
function qualitySpec(value) {
  return value.endsWith('-monotonic')
    ? { model: value.slice(0, -'-monotonic'.length), monotonic: true }
    : { model: value };
}

function el(tag, attributes = {}, ...children) {
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

function showError(message) {
  const box = $('#error');
  box.textContent = message;
  box.hidden = !message;
}

async function api(path, options = {}) {
  const response = await fetch(API + path, { credentials: 'same-origin', ...options });
  const type = response.headers.get('Content-Type') || '';
  const body = type.startsWith('application/json') ? await response.json() : await response.text();
  if (!response.ok) {
    const message = body && body.error ? body.error : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
}

async function guard(action) {
  showError('');
  try {
    await action();
  } catch (e) {
    showError(e.message);
  }
}

const number = (x, digits = 4) =>
  x === null || x === undefined ? '–' : Number(x).toLocaleString('en', { maximumFractionDigits: digits });
const percent = (x) =>
  x === null || x === undefined ? '–' : `${Number(100 * x).toLocaleString('en', { maximumSignificantDigits: 3 })} %`;
// The lines of a text area that are not blank, trimmed.
const lines = (text) => text.split('\n').map((line) => line.trim()).filter(Boolean);
// NAME=VALUE lines as an object of numbers; `what` names them in errors.
function assignments(text, what) {
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
function figures(selector, pairs) {
  $(selector).replaceChildren(...pairs.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
}
const levels = (t) => Object.entries(t).map(([a, l]) => `${a}=${l}`).join(', ');
const sameTransformation = (a, b) =>
  a && b && Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => a[k] === b[k]);

// ---- steps -----------------------------------------------------------------

function showStep(name) {
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

function enableSteps(...names) {
  for (const name of names) $(`.step[data-step="${name}"]`).disabled = false;
}

// ---- 1. data ---------------------------------------------------------------

async function loadFiles() {
  try {
    state.files = (await api('/files')).files;
  } catch (e) {
    state.files = [];
  }
  const select = $('#file-select');
  select.replaceChildren(...state.files.map((f) => el('option', { value: f, text: f })));
  const tables = state.files.filter((f) => !f.includes('/'));
  if (tables.length) select.value = tables[0];
  $('#load-file').disabled = state.files.length === 0;
  if (!state.files.length) select.append(el('option', { value: '', text: '(no --data-dir, or no CSV in it)' }));
}

async function openDataset(id) {
  state.dataset = await api(`/datasets/${id}`);
  document.body.dataset.dataset = id;
  state.attributes = {};
  for (const c of state.dataset.columns) state.attributes[c.name] = { role: 'insensitive', hierarchy: null, settings: {} };
  $('#data-status').textContent = '';
  renderSummary();
  renderRoles();
  renderSensitiveSelects();
  renderColumnSelects();
  renderUtilitySelects();
  enableSteps('attributes', 'privacy');
  $('#dataset-name').textContent = `${state.dataset.name}: ${number(state.dataset.rows)} records`;
}

// DELETE /datasets/ID: the table, its jobs and their files leave the
// server; the app goes back to an empty step 1.
async function deleteDataset() {
  const d = state.dataset;
  if (!d) return;
  if (state.events) state.events.close();
  await api(`/datasets/${d.id}`, { method: 'DELETE' });
  state.dataset = null;
  state.job = null;
  state.result = null;
  state.attributes = {};
  delete document.body.dataset.dataset;
  delete document.body.dataset.resultJob;
  $('#summary').hidden = true;
  $('#dataset-name').textContent = '';
  for (const button of $$('.step')) if (button.dataset.step !== 'data') button.disabled = true;
  $('#data-status').textContent = `${d.name} was deleted from the server, with its jobs and their outputs.`;
  $('#file-select').focus();
}

function renderSummary() {
  const d = state.dataset;
  $('#summary').hidden = false;
  $('#summary-rows').textContent =
    `${d.name}: ${number(d.rows)} records, ${d.columns.length} columns, delimiter "${d.delimiter}".`;
  const body = $('#columns-table tbody');
  body.replaceChildren(
    ...d.columns.map((c, i) =>
      el('tr', {},
        el('th', { scope: 'row', text: c.name }),
        el('td', { text: c.type }),
        el('td', { class: 'num', text: number(c.distinct) }),
        el('td', { class: 'sample', text: d.sample.map((row) => row[i]).join(' · ') }))));
}

// ---- 2. attributes ---------------------------------------------------------

function defaultHierarchy(column) {
  const file = state.files.find((f) => f.endsWith(`/${column}.csv`) && f.includes('hierarch'));
  if (file) return { file };
  const c = state.dataset.columns.find((x) => x.name === column);
  if (c.type === 'integer' || c.type === 'decimal') return { builder: { type: 'intervals', min: 0, max: 100, widths: [5, 10, 20], 'top-coding': true } };
  if (c.type === 'date') return { builder: { type: 'dates' } };
  return { builder: { type: 'masking' } };
}

function describeHierarchy(h) {
  if (!h) return '';
  if (h.file) return h.file;
  if (h.rows) return `${h.rows.length} rows typed in`;
  const { type, ...rest } = h.builder;
  const params = Object.entries(rest).map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : v}`);
  return `${type}${params.length ? ` (${params.join(', ')})` : ''}`;
}

// The hierarchy and the settings of an attribute, as the roles table shows them.
function describeAttribute(a) {
  const s = a.settings;
  const parts = [];
  if (a.hierarchy) parts.push(describeHierarchy(a.hierarchy));
  if (s.transformation === 'microaggregation')
    parts.push(`microaggregation: ${s.function}${s['generalize-before'] ? ', generalized first' : ''}`);
  if (s['min-level'] !== undefined || s['max-level'] !== undefined)
    parts.push(`levels ${s['min-level'] ?? 0} to ${s['max-level'] ?? 'top'}`);
  if (s.weight !== undefined) parts.push(`weight ${s.weight}`);
  if (s.order) parts.push(`order: ${s.order.join(' < ')}`);
  return parts.join('; ') || '–';
}

function renderRoles() {
  const body = $('#roles-table tbody');
  body.replaceChildren(
    ...state.dataset.columns.map((c) => {
      const a = state.attributes[c.name];
      const select = el('select', { 'aria-label': `Role of ${c.name}`, 'data-role-for': c.name },
        ...ROLES.map((r) => el('option', { value: r, text: r })));
      select.value = a.role;
      select.addEventListener('change', () => {
        a.role = select.value;
        a.settings = {};
        if (a.role === 'quasi-identifying' && !a.hierarchy) a.hierarchy = defaultHierarchy(c.name);
        if (a.role === 'insensitive' || a.role === 'identifying') a.hierarchy = null;
        renderRoles();
        renderSensitiveSelects();
        renderUtilitySelects();
        $(`select[data-role-for="${CSS.escape(c.name)}"]`).focus();
      });
      const canHave = a.role === 'quasi-identifying' || a.role === 'sensitive';
      return el('tr', {},
        el('th', { scope: 'row', text: c.name }),
        el('td', {}, select),
        el('td', { text: canHave ? describeAttribute(a) : '' }),
        el('td', {}, canHave
          ? el('button', { type: 'button', class: 'small', 'data-edit-for': c.name, text: 'Settings…',
                           'aria-label': `Edit the hierarchy and settings of ${c.name}`, onclick: () => openEditor(c.name) })
          : null));
    }));
}

function renderSensitiveSelects() {
  const sensitive = Object.entries(state.attributes).filter(([, a]) => a.role === 'sensitive').map(([n]) => n);
  for (const select of $$('.sensitive-select')) {
    const old = select.value;
    select.replaceChildren(...sensitive.map((n) => el('option', { value: n, text: n })));
    if (sensitive.includes(old)) select.value = old;
  }
}

// Every column as the options of the research subset's column select.
function renderColumnSelects() {
  const columns = Object.keys(state.attributes);
  for (const select of $$('.column-select')) {
    const old = select.value;
    select.replaceChildren(...columns.map((n) => el('option', { value: n, text: n })));
    if (columns.includes(old)) select.value = old;
  }
}

// The columns released (every role but identifying) as the options of the
// utility analysis's selects, keeping what was chosen.
function renderUtilitySelects() {
  const released = Object.entries(state.attributes).filter(([, a]) => a.role !== 'identifying').map(([n]) => n);
  for (const select of $$('#o-utility-target, #o-utility-features')) {
    const chosen = new Set([...select.selectedOptions].map((o) => o.value));
    select.replaceChildren(...released.map((n) => el('option', { value: n, text: n, selected: chosen.has(n) })));
  }
}

function openEditor(column) {
  state.editing = column;
  const a = state.attributes[column];
  const sensitive = a.role === 'sensitive';
  // A sensitive attribute needs a hierarchy only for the hierarchical distance.
  const h = a.hierarchy || (sensitive ? null : defaultHierarchy(column));
  const s = a.settings;
  $('#editor-title').textContent = `Hierarchy and settings of ${column}`;
  $('#qi-settings').hidden = a.role !== 'quasi-identifying';
  $('#sensitive-settings').hidden = !sensitive;
  $('#h-source-none-item').hidden = !sensitive;
  $('#a-transformation').value = s.transformation || 'generalization';
  $('#a-function').value = s.function || 'mean';
  $('#a-generalize-before').checked = !!s['generalize-before'];
  $('#a-min-level').value = s['min-level'] ?? '';
  $('#a-max-level').value = s['max-level'] ?? '';
  $('#a-weight').value = s.weight ?? '';
  $('#a-order').value = (s.order || []).join('\n');
  const fileSelect = $('#h-file');
  fileSelect.replaceChildren(...state.files.map((f) => el('option', { value: f, text: f })));
  $('#h-source-file').disabled = state.files.length === 0;
  if (!h) {
    $('#h-source-none').checked = true;
  } else if (h.file) {
    $('#h-source-file').checked = true;
    fileSelect.value = h.file;
  } else if (h.rows) {
    $('#h-source-rows').checked = true;
    $('#h-rows').value = h.rows.map((r) => r.join(';')).join('\n');
  } else {
    $('#h-source-builder').checked = true;
    const b = h.builder;
    $('#h-type').value = b.type;
    if (b.type === 'intervals') {
      $('#h-min').value = b.min;
      $('#h-max').value = b.max;
      $('#h-widths').value = b.widths.join(', ');
      $('#h-bottom').checked = !!b['bottom-coding'];
      $('#h-top').checked = !!b['top-coding'];
    } else if (b.type === 'masking') {
      $('#h-levels').value = b.levels ?? '';
      $('#h-from-left').checked = !!b['from-left'];
    } else if (b.type === 'dates') {
      $('#h-month').checked = b.month !== false;
      $('#h-year').checked = b.year !== false;
      $('#h-decade').checked = b.decade !== false;
    } else if (b.type === 'grouping') {
      $('#h-order').value = (b.order || []).join('\n');
      $('#h-sizes').value = (b.sizes || []).join(', ');
    }
  }
  $('#h-preview-out').replaceChildren();
  $('#h-to-rows').hidden = true;
  state.preview = null;
  updateEditor();
  $('#hierarchy-editor').hidden = false;
  $('#hierarchy-editor h3').tabIndex = -1;
  $('#hierarchy-editor h3').focus();
}

// Whether the attribute in the editor takes a hierarchy: not when it is
// microaggregated without being generalized first.
function editorTakesHierarchy() {
  return $('#qi-settings').hidden || $('#a-transformation').value !== 'microaggregation' ||
    $('#a-generalize-before').checked;
}

function updateEditor() {
  const takes = editorTakesHierarchy();
  $('#a-micro-fields').hidden = $('#a-transformation').value !== 'microaggregation';
  $('#a-level-fields').hidden = !takes;
  $('#h-source-fields').hidden = !takes;
  $('#h-preview-out').hidden = !takes;
  const source = takes ? $('input[name="h-source"]:checked')?.value || 'builder' : 'none';
  $('#h-file-fields').hidden = source !== 'file';
  $('#h-builder-fields').hidden = source !== 'builder';
  $('#h-rows-fields').hidden = source !== 'rows';
  for (const p of $$('.params[data-type]')) p.hidden = p.dataset.type !== $('#h-type').value;
}

const list = (text) => text.split(/[,\s]+/).filter(Boolean).map(Number);

function editorBuilder() {
  const type = $('#h-type').value;
  const b = { type };
  if (type === 'intervals') {
    b.min = Number($('#h-min').value);
    b.max = Number($('#h-max').value);
    b.widths = list($('#h-widths').value);
    if ($('#h-bottom').checked) b['bottom-coding'] = true;
    if ($('#h-top').checked) b['top-coding'] = true;
  } else if (type === 'masking') {
    if ($('#h-levels').value) b.levels = Number($('#h-levels').value);
    if ($('#h-from-left').checked) b['from-left'] = true;
  } else if (type === 'dates') {
    for (const k of ['month', 'year', 'decade']) if (!$(`#h-${k}`).checked) b[k] = false;
  } else {
    b.order = $('#h-order').value.split('\n').map((s) => s.trim()).filter(Boolean);
    b.sizes = list($('#h-sizes').value);
  }
  return b;
}

function editorHierarchy() {
  if (!editorTakesHierarchy() || $('#h-source-none').checked) return null;
  if ($('#h-source-file').checked) return { file: $('#h-file').value };
  if ($('#h-source-rows').checked) {
    const rows = $('#h-rows').value.split('\n').filter((line) => line.trim()).map((line) => line.split(';'));
    if (!rows.length) throw new Error('type the rows of the hierarchy: value;level 1;...;*');
    return { rows };
  }
  return { builder: editorBuilder() };
}

async function previewHierarchy() {
  const out = $('#h-preview-out');
  // Only the latest request is shown (live previews may overtake each other).
  const seq = ++previewSeq;
  const preview = await api(`/datasets/${state.dataset.id}/hierarchy-preview`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ column: state.editing, builder: editorBuilder() }),
  });
  if (seq !== previewSeq) return;
  const head = el('tr', {}, el('th', { scope: 'col', text: 'Value' }),
    ...Array.from({ length: preview.levels - 1 }, (_, i) => el('th', { scope: 'col', text: `Level ${i + 1}` })));
  const rows = preview.rows.map((row) => el('tr', {}, ...row.map((v) => el('td', { text: v }))));
  out.replaceChildren(
    el('p', { class: 'hint', text: `${preview.total_rows} values, ${preview.levels - 1} levels above the value` +
      (preview.total_rows > preview.rows.length ? ` (the first ${preview.rows.length} shown)` : '') }),
    el('div', { class: 'scroll' }, el('table', { id: 'h-preview-table' }, el('thead', {}, head), el('tbody', {}, ...rows))));
  state.preview = preview;
  $('#h-to-rows').hidden = preview.total_rows > preview.rows.length;
}

function previewToRows() {
  if (!state.preview) return;
  $('#h-rows').value = state.preview.rows.map((r) => r.join(';')).join('\n');
  $('#h-source-rows').checked = true;
  updateEditor();
  $('#h-rows').focus();
}

// The settings of the editor as the attribute's keys in the job
// (docs/job-file.md, "attributes"); the parser checks their values.
function editorSettings(role) {
  const s = {};
  const level = (selector, key, name) => {
    const text = $(selector).value.trim();
    if (text === '') return;
    if (!/^\d+$/.test(text)) throw new Error(`${name}: a level is a whole number from 0`);
    s[key] = Number(text);
  };
  if (role === 'quasi-identifying') {
    if ($('#a-transformation').value === 'microaggregation') {
      s.transformation = 'microaggregation';
      s.function = $('#a-function').value;
      if ($('#a-generalize-before').checked) s['generalize-before'] = true;
    }
    if (editorTakesHierarchy()) {
      level('#a-min-level', 'min-level', 'lowest level');
      level('#a-max-level', 'max-level', 'highest level');
    }
    if ($('#a-weight').value !== '') s.weight = Number($('#a-weight').value);
  } else if (role === 'sensitive') {
    const order = lines($('#a-order').value);
    if (order.length) s.order = order;
  }
  return s;
}

function applyHierarchy() {
  const column = state.editing;
  const a = state.attributes[column];
  const settings = editorSettings(a.role);
  a.hierarchy = editorHierarchy();
  a.settings = settings;
  showError('');
  $('#hierarchy-editor').hidden = true;
  renderRoles();
  $(`button[data-edit-for="${CSS.escape(column)}"]`)?.focus();
}

// ---- 3. the job --------------------------------------------------------------

const command = () => $('input[name="command"]:checked').value;

// Shows the settings of the kind of job chosen.
function updateCommand() {
  const c = command();
  $('#privacy-options').hidden = c === 'suppress';
  $('#anonymize-options').hidden = c !== 'anonymize';
  $('#risk-options').hidden = c !== 'risk';
  $('#suppress-options').hidden = c !== 'suppress';
}

function privacyModels() {
  const privacy = [];
  if ($('#m-k').checked) privacy.push({ 'k-anonymity': { k: Number($('#m-k-k').value) } });
  if ($('#m-l').checked) {
    const l = { attribute: $('#m-l-attr').value, variant: $('#m-l-variant').value, l: Number($('#m-l-l').value) };
    if (l.variant === 'recursive') l.c = Number($('#m-l-c').value);
    if (l.variant === 'entropy' && $('#m-l-estimator').value !== 'shannon') l.estimator = $('#m-l-estimator').value;
    privacy.push({ 'l-diversity': l });
  }
  if ($('#m-t').checked)
    privacy.push({ 't-closeness': { attribute: $('#m-t-attr').value, distance: $('#m-t-distance').value, t: Number($('#m-t-t').value) } });
  if ($('#m-p').checked)
    privacy.push({ 'population-uniqueness': { threshold: Number($('#m-p-threshold').value),
      'population-size': Number($('#m-p-size').value), estimator: $('#m-p-estimator').value } });
  if ($('#m-ar').checked) {
    const ar = { threshold: Number($('#m-ar-threshold').value) };
    if ($('#m-ar-highest').value !== '') {
      ar['highest-risk'] = Number($('#m-ar-highest').value);
      ar['records-at-risk'] = Number($('#m-ar-records').value);
    }
    privacy.push({ 'average-risk': ar });
  }
  if ($('#m-su').checked) privacy.push({ 'sample-uniqueness': { threshold: Number($('#m-su-threshold').value) } });
  if ($('#m-pr').checked)
    privacy.push({ profitability: { attack: $('#m-pr-attack').checked, attacker: $('#m-pr-attacker').value } });
  if ($('#m-km').checked && $('#m-km-table').checked)
    privacy.push({ 'k-map': { k: Number($('#m-km-k').value) } });
  else if ($('#m-km').checked)
    privacy.push({ 'k-map': { k: Number($('#m-km-k').value), 'population-size': Number($('#m-km-size').value),
      significance: Number($('#m-km-significance').value), estimator: $('#m-km-estimator').value } });
  if ($('#m-dp').checked)
    privacy.push({ 'delta-presence': { min: Number($('#m-dp-min').value), max: Number($('#m-dp-max').value) } });
  if ($('#m-dd').checked)
    privacy.push({ 'delta-disclosure': { attribute: $('#m-dd-attr').value, delta: Number($('#m-dd-delta').value) } });
  if ($('#m-bl').checked)
    privacy.push({ 'beta-likeness': { attribute: $('#m-bl-attr').value, variant: $('#m-bl-variant').value,
      beta: Number($('#m-bl-beta').value) } });
  return privacy;
}

// The job of the settings (docs/job-file.md), for the command chosen;
// `transformation`: release it instead of searching (anonymize).
function buildJob(transformation) {
  const c = transformation ? 'anonymize' : command();
  const attributes = {};
  for (const [name, a] of Object.entries(state.attributes)) {
    if (a.role === 'insensitive') continue;
    // A suppress job releases every quasi-identifier as it is (level 0):
    // the roles only.
    const spec = c === 'suppress' ? { role: a.role } : { role: a.role, ...a.settings };
    if (c !== 'suppress' && a.hierarchy && (a.role === 'quasi-identifying' || a.role === 'sensitive'))
      spec.hierarchy = a.hierarchy.file ?? a.hierarchy.rows ?? a.hierarchy.builder;
    attributes[name] = spec;
  }
  const job = { dataset: state.dataset.id, attributes, 'default-role': 'insensitive' };
  if (c !== 'anonymize') job.command = c;
  if (c === 'suppress') {
    const cs = { k: Number($('#s-k').value) };
    if ($('#s-marker').value !== '*') cs.marker = $('#s-marker').value;
    const combinations = lines($('#s-combinations').value)
      .map((line) => line.split(',').map((name) => name.trim()).filter(Boolean));
    if (combinations.length) cs.combinations = combinations;
    const weights = assignments($('#s-weights').value, 'weights');
    if (Object.keys(weights).length) cs.weights = weights;
    if ($('#s-complete').checked) cs['compare-complete'] = true;
    job['cell-suppression'] = cs;
    return job;
  }
  job.privacy = privacyModels();
  if (c === 'risk') {
    job.risk = { threshold: Number($('#r-threshold').value) };
    const populations = assignments($('#r-populations').value, 'populations');
    if (Object.keys(populations).length) job.risk.populations = populations;
    return job;
  }
  const search = { algorithm: $('#o-algorithm').value };
  if ($('#o-time').value) search['time-limit'] = `${Number($('#o-time').value)}s`;
  if ($('#o-checks').value) search['max-checks'] = Number($('#o-checks').value);
  if (transformation) search.transformation = transformation;
  job['suppression-limit'] = Number($('#o-suppression').value || 0);
  job.quality = qualitySpec($('#o-quality').value);
  if ($('#m-pr').checked || job.quality.model === 'publisher-payout') {
    job['cost-benefit'] = {
      'publisher-benefit': Number($('#m-cb-benefit').value),
      'publisher-loss': Number($('#m-cb-loss').value),
      'adversary-gain': Number($('#m-cb-gain').value),
      'adversary-cost': Number($('#m-cb-cost').value),
    };
  }
  if ($('#m-subset').checked) job.subset = { column: $('#m-subset-column').value, value: $('#m-subset-value').value };
  if (job.quality.model === 'classification') {
    job.quality['response-variables'] = $('#o-responses').value.split(',').map((v) => v.trim()).filter((v) => v);
  }
  job.search = search;
  if (!$('#o-utility').checked) {
    job.output = { utility: false };
  } else {
    const chosen = (selector) => [...$(selector).selectedOptions].map((o) => o.value);
    const utility = {};
    if (chosen('#o-utility-target').length) utility.target = chosen('#o-utility-target');
    if (chosen('#o-utility-features').length) utility.features = chosen('#o-utility-features');
    if (Object.keys(utility).length) job.utility = utility;
  }
  return job;
}

// ---- 4. run --------------------------------------------------------------------

async function run(transformation) {
  const spec = buildJob(transformation);
  const { id } = await api('/jobs', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(spec),
  });
  state.job = { id, spec, command: spec.command || 'anonymize' };
  enableSteps('run');
  showStep('run');
  $('#run-what').textContent = transformation
    ? `Releasing the transformation ${levels(transformation)}.`
    : spec.command === 'risk'
      ? `Measuring the re-identification risk of ${state.dataset.name}.`
      : spec.command === 'suppress'
        ? `Suppressing cells until every combination of quasi-identifiers is ${spec['cell-suppression'].k}-anonymous.`
        : `Searching for the transformation with the least ${spec.quality.model}.`;
  const progress = $('#progress');
  progress.removeAttribute('value');  // indeterminate until the search reports a fraction
  $('#run-status').textContent = 'queued';
  $('#cancel').disabled = false;
  $('#show-result').hidden = true;
  if (state.events) state.events.close();
  const events = new EventSource(`${API}/jobs/${id}/events`);
  state.events = events;
  const onStatus = (message) => {
    const s = JSON.parse(message.data);
    const p = s.progress || {};
    if (typeof p.fraction_done === 'number') progress.value = p.fraction_done;
    let text = s.status === 'running' && p.phase ? `running: ${p.phase}` : s.status;
    if (p.checked !== undefined) text += `, ${number(p.checked)} transformations checked`;
    if (p.best_loss !== undefined) text += `, best loss so far ${number(p.best_loss)}`;
    $('#run-status').textContent = text;
  };
  events.addEventListener('status', onStatus);
  for (const end of ['done', 'failed', 'cancelled']) {
    events.addEventListener(end, (message) => {
      events.close();
      onStatus(message);
      $('#cancel').disabled = true;
      const s = JSON.parse(message.data);
      if (end === 'done') {
        progress.value = 1;
        guard(() => showResult(s));
      } else if (end === 'failed') {
        showError(`The job failed: ${s.error}`);
      }
    });
  }
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) $('#run-status').textContent = 'the connection to the server was lost';
  };
}

async function cancel() {
  if (!state.job) return;
  await api(`/jobs/${state.job.id}`, { method: 'DELETE' });
}

// ---- 5. result -----------------------------------------------------------------

async function showResult(status) {
  const { id, command: c } = state.job;
  const r = await api(`/jobs/${id}/result`);
  state.result = r;
  enableSteps('result', 'downloads');
  for (const kind of ['anonymize', 'risk', 'suppress']) $(`#result-${kind}`).hidden = kind !== c;
  let headline;
  if (c === 'risk') {
    headline = showRisk(id, r);
    $('#run-status').textContent = `done. ${headline}`;
  } else if (c === 'suppress') {
    headline = await showSuppression(id, r);
    $('#run-status').textContent = `done in ${number(r.time_ms?.total, 0)} ms. ${headline}`;
  } else {
    headline = await showAnonymization(id, r, status.solution_found);
  }
  $('#result-headline').textContent = headline;

  const stem = datasetStem();
  const suffix = c === 'risk' ? 'risk' : 'deid';
  for (const [link, path, name] of [
    ['#dl-output', 'output', `${stem}-deid.csv`],
    ['#dl-result', 'result', `${stem}-${suffix}.json`],
    ['#dl-report', 'report', `${stem}-${suffix}.html`],
    ['#dl-job', 'job.yaml', 'job.yaml'],
  ]) {
    const a = $(link);
    a.href = `${API}/jobs/${id}/${path}`;
    a.setAttribute('download', name);
  }
  $('#dl-output').parentElement.hidden = c === 'risk' || (c === 'anonymize' && !status.solution_found);
  $('#dl-report').parentElement.hidden = c === 'suppress';
  const rows = Object.values(state.job.spec.attributes).some((a) => Array.isArray(a.hierarchy));
  $('#dl-job-item').hidden = rows;
  $('#dl-job-none').hidden = !rows;
  // The run step stays in view, with its outcome, until the user goes on.
  const next = $('#show-result');
  next.hidden = false;
  next.focus();
  document.body.dataset.resultJob = id;
}

// The figures of `deid risk` (docs/risk-models.md); returns the headline.
function showRisk(id, r) {
  const s = r.sample_risk;
  figures('#risk-figures', [
    ['Records', `${number(r.records)}${r.suppressed_records ? ` (${number(r.suppressed_records)} suppressed, left out)` : ''}`],
    ['Quasi-identifiers', r.quasi_identifiers.join(', ')],
    ['Classes', number(r.classes)],
    ['Sample uniques', `${number(r.sample_uniques.records)} (${percent(r.sample_uniques.fraction)})`],
    ['Highest risk', `${percent(s.highest_risk)} (${number(s.records_affected_by_highest_risk)} records)`],
    ['Average risk', percent(s.average_risk)],
    ['Lowest risk', percent(s.lowest_risk)],
  ]);
  const m = r.attacker_models;
  $('#risk-attackers-hint').textContent =
    `A record is at risk when its risk is above ${percent(m.threshold)} (the risk threshold).`;
  $('#risk-attackers tbody').replaceChildren(...[
    ['prosecutor', m.prosecutor], ['journalist', m.journalist], ['marketer', m.marketer],
  ].map(([name, a]) => el('tr', {},
    el('th', { scope: 'row', text: name }),
    el('td', { class: 'num', text: a.records_at_risk === undefined ? '–' : percent(a.records_at_risk) }),
    el('td', { class: 'num', text: a.highest_risk === undefined ? '–' : percent(a.highest_risk) }),
    el('td', { class: 'num', text: percent(a.success_rate) }))));
  $('#risk-populations tbody').replaceChildren(...r.population_uniques.map((p) => el('tr', {},
    el('th', { scope: 'row', text: p.name }),
    el('td', { class: 'num', text: number(p.size, 0) }),
    el('td', { class: 'num', text: number(p.expected_population_uniques, 1) }),
    el('td', { class: 'num', text: percent(p.pu_su_ratio) }))));
  $('#risk-report-link').href = `${API}/jobs/${id}/report`;
  return `Risk of ${r.input}: highest ${percent(s.highest_risk)}, average ${percent(s.average_risk)}; ` +
    `${number(r.sample_uniques.records)} sample uniques among ${number(r.records)} records.`;
}

// The figures of `deid suppress` (docs/cell-suppression.md) and the first
// rows of the released table; returns the headline.
async function showSuppression(id, r) {
  const l = r.information_loss;
  const pairs = [
    ['k', number(r.k)],
    ['Records', number(r.records)],
    ['Combinations', number(r.combinations.length)],
    ['Cells suppressed', `${number(l.suppressed_cells)} of ${number(l.quasi_identifier_cells)} (${percent(l.suppressed_cells_fraction)})`],
    ['Records with a suppressed cell', `${number(l.records_with_suppression)} (${percent(l.records_with_suppression_fraction)})`],
  ];
  if (r.complete) pairs.push(['Complete algorithm', `${number(r.complete.suppressed_cells)} cells (${percent(r.complete.suppressed_cells_fraction)})`]);
  figures('#suppress-figures', pairs);
  $('#suppress-columns tbody').replaceChildren(...r.released_columns.map((name) => {
    const c = l.columns[name] || {};
    return el('tr', {},
      el('th', { scope: 'row', text: name }),
      el('td', { class: 'num', text: number(c.suppressed_records) }),
      el('td', {}, el('meter', { min: 0, max: 1, value: c.fraction || 0, 'aria-label': `share of ${name} suppressed` }),
        ` ${percent(c.fraction)}`));
  }));
  const shown = 20;
  const response = await fetch(`${API}/jobs/${id}/output`, { credentials: 'same-origin' });
  const table = response.ok ? parseCsv(await response.text(), state.dataset.delimiter) : [];
  const [header = [], ...body] = table;
  $('#suppress-table thead').replaceChildren(el('tr', {}, ...header.map((h) => el('th', { scope: 'col', text: h }))));
  $('#suppress-table tbody').replaceChildren(...body.slice(0, shown).map((row) =>
    el('tr', {}, ...row.map((v) => el('td', { class: v === r.marker ? 'suppressed' : undefined, text: v })))));
  $('#suppress-table-hint').textContent =
    `The first ${Math.min(shown, body.length)} of ${number(body.length)} records; a suppressed cell shows ${r.marker}.`;
  return `k = ${r.k}: ${number(l.suppressed_cells)} cells suppressed (${percent(l.suppressed_cells_fraction)}), ` +
    `in ${number(l.records_with_suppression)} of ${number(r.records)} records.`;
}

// The figures of `deid anonymize`; returns the headline.
async function showAnonymization(id, r, found) {
  const headline = found
    ? `Released: ${levels(r.transformation)}; information loss ${number(r.information_loss)} (${r.quality_model})` +
      `${r.optimal ? ', optimal' : ''}.`
    : r.search?.stopped_by
      ? `The search stopped at search.${r.search.stopped_by} before it found a transformation that satisfies the ` +
        'job; the job may still be satisfiable: nothing was released.'
      : 'No transformation satisfies the job: nothing was released (see the report).';
  $('#run-status').textContent =
    `done: ${number(r.search?.transformations_checked)} transformations checked in ` +
    `${number(r.time_ms?.total, 0)} ms. ${headline}`;

  const perAttribute = r.information_loss_per_attribute || {};
  const max = Math.max(1e-12, ...Object.values(perAttribute).map(Number));
  $('#transformation-table tbody').replaceChildren(
    ...Object.entries(r.transformation || {}).map(([a, level]) =>
      el('tr', {},
        el('th', { scope: 'row', text: a }),
        el('td', { class: 'num', text: String(level) }),
        el('td', {},
          perAttribute[a] === undefined ? '–' : el('meter', { min: 0, max, value: perAttribute[a], 'aria-label': `loss of ${a}` }),
          ` ${number(perAttribute[a])}`))));

  const figures = [
    ['Records', number(r.records)],
    ['Suppressed', `${number(r.suppressed_records)} (limit ${number(r.suppression_limit_records)})`],
    ['Classes', number(r.classes)],
    ['Smallest class', number(r.smallest_class_size)],
    ['Largest class', number(r.largest_class_size)],
    ['Average class size', number(r.average_class_size, 2)],
    ['Checked', `${number(r.search?.transformations_checked)} of ${number(r.search?.lattice_size)}`],
  ];
  $('#class-figures').replaceChildren(...figures.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
  $('#report-link').href = `${API}/jobs/${id}/report`;

  const chosen = r.transformation;
  const useButton = (t, label) => el('button', {
    type: 'button', class: 'small', text: 'Release',
    'aria-label': `Release ${label}`,
    disabled: sameTransformation(t, chosen) ? true : undefined,
    onclick: () => guard(() => run(t)),
  });
  const frontier = r.search?.frontier || [];
  $('#frontier-table tbody').replaceChildren(...frontier.map((p, i) =>
    el('tr', { class: sameTransformation(p.transformation, chosen) ? 'chosen' : undefined },
      el('td', { text: levels(p.transformation) }),
      el('td', { class: 'num', text: number(p.information_loss) }),
      el('td', { class: 'num', text: number(p.average_risk) }),
      el('td', {}, useButton(p.transformation, `frontier point ${i + 1}`)))));
  const best = r.search?.best_solutions || [];
  $('#best-table tbody').replaceChildren(...best.map((p, i) =>
    el('tr', { class: sameTransformation(p.transformation, chosen) ? 'chosen' : undefined },
      el('td', { text: levels(p.transformation) }),
      el('td', { class: 'num', text: number(p.information_loss) }),
      el('td', { class: 'num', text: number(p.suppressed_records) }),
      el('td', {}, useButton(p.transformation, `best solution ${i + 1}`)))));
  plotFrontier(frontier, chosen);
  $('#sizes-table tbody').replaceChildren();
  if (found && r.records <= 2000000) await classSizes(id, r);
  showUtility(r.utility);
  return headline;
}

// The utility analysis of the result (docs/utility.md), when it has one.
function showUtility(u) {
  $('#utility-cards').hidden = !u;
  if (!u) return;
  $('#utility-attributes tbody').replaceChildren(...u.attributes.map((a) => el('tr', {},
    el('th', { scope: 'row', text: a.name }),
    el('td', { class: 'num', text: number(a.total_variation) }),
    el('td', { class: 'num', text: number(a.jensen_shannon) }))));
  $('#utility-classification tbody').replaceChildren(...u.classification.map((c) => el('tr', {},
    el('th', { scope: 'row', text: c.target }),
    el('td', { class: 'num', text: percent(c.baseline_accuracy) }),
    el('td', { class: 'num', text: percent(c.accuracy_before) }),
    el('td', { class: 'num', text: percent(c.accuracy_after) }),
    el('td', { class: 'num', text: percent(c.relative_accuracy) }))));
  $('#utility-classification-none').hidden = u.classification.length > 0;
}

// The records of a CSV text as arrays of fields (RFC 4180 quoting).
function parseCsv(text, delimiter) {
  const records = [];
  let record = [], field = '', quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; ++i; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) { record.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') ++i;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length) { record.push(field); records.push(record); }
  return records;
}

// Counts the released classes (records equal in every quasi-identifier) of
// the released table and shows them by size.
async function classSizes(id, r) {
  const response = await fetch(`${API}/jobs/${id}/output`, { credentials: 'same-origin' });
  if (!response.ok) return;
  const rows = parseCsv(await response.text(), state.dataset.delimiter);
  const header = rows.shift() || [];
  const qi = r.quasi_identifiers.map((q) => header.indexOf(q)).filter((i) => i >= 0);
  const classes = new Map();
  for (const row of rows) {
    const values = qi.map((i) => row[i]);
    if (values.every((v) => v === '*') && r.suppressed_records > 0) continue;  // suppressed
    const key = values.join('\u0000');
    classes.set(key, (classes.get(key) || 0) + 1);
  }
  const bounds = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, Infinity];
  const bins = bounds.slice(0, -1).map((lo, i) => ({ lo, hi: bounds[i + 1] - 1, classes: 0, records: 0 }));
  for (const size of classes.values()) {
    const bin = bins.find((b) => size >= b.lo && size <= b.hi);
    bin.classes += 1;
    bin.records += size;
  }
  const used = bins.filter((b) => b.classes > 0);
  const most = Math.max(1, ...used.map((b) => b.records));
  $('#sizes-table tbody').replaceChildren(...used.map((b) =>
    el('tr', {},
      el('th', { scope: 'row', text: b.hi === Infinity ? `${number(b.lo)} or more` : b.lo === b.hi ? number(b.lo) : `${number(b.lo)}–${number(b.hi)}` }),
      el('td', { class: 'num', text: number(b.classes) }),
      el('td', {}, el('meter', { min: 0, max: most, value: b.records, 'aria-label': 'records' }), ` ${number(b.records)}`))));
}

function datasetStem() {
  const name = state.dataset.name.split('/').pop();
  return name.replace(/\.[^.]*$/, '') || 'dataset';
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attributes) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  return e;
}

// Average risk (y) against information loss (x), one point per solution.
function plotFrontier(frontier, chosen) {
  const plot = $('#frontier-plot');
  plot.replaceChildren();
  const W = 420, H = 220, L = 48, B = 30, T = 10, R = 10;
  if (!frontier.length) {
    $('#frontier-caption').textContent = 'No frontier: no solution was found.';
    return;
  }
  const xs = frontier.map((p) => p.information_loss), ys = frontier.map((p) => p.average_risk);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = 0, y1 = Math.max(...ys) || 1;
  const sx = (x) => L + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * (W - L - R);
  const sy = (y) => H - B - ((y - y0) / (y1 - y0)) * (H - B - T);
  plot.append(svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
  plot.append(svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }));
  const label = (x, y, text, anchor = 'middle') => {
    const t = svg('text', { class: 'label', x, y, 'text-anchor': anchor });
    t.textContent = text;
    plot.append(t);
  };
  label((L + W - R) / 2, H - 4, 'information loss');
  label(L - 4, T + 8, number(y1, 3), 'end');
  label(L - 4, H - B, '0', 'end');
  label(L, H - B + 13, number(x0, 3), 'start');
  label(W - R, H - B + 13, number(x1, 3), 'end');
  const t = svg('text', { class: 'label', x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, 'text-anchor': 'middle' });
  t.textContent = 'average risk';
  plot.append(t);
  plot.append(svg('polyline', { class: 'line', points: frontier.map((p) => `${sx(p.information_loss)},${sy(p.average_risk)}`).join(' ') }));
  for (const p of frontier) {
    const c = svg('circle', { class: sameTransformation(p.transformation, chosen) ? 'point chosen' : 'point',
      cx: sx(p.information_loss), cy: sy(p.average_risk), r: 4 });
    const title = svg('title', {});
    title.textContent = `${levels(p.transformation)}: loss ${number(p.information_loss)}, average risk ${number(p.average_risk)}`;
    c.append(title);
    plot.append(c);
  }
  $('#frontier-caption').textContent =
    `${frontier.length} solutions from loss ${number(x0)} (average risk ${number(ys[0])}) to loss ${number(x1)} ` +
    `(average risk ${number(ys[ys.length - 1])}); the chosen one in red.`;
}

// ---- wiring ---------------------------------------------------------------------

function init() {
  for (const button of $$('.step')) button.addEventListener('click', () => showStep(button.dataset.step));
  for (const button of $$('button[data-next]')) button.addEventListener('click', () => showStep(button.dataset.next));
  $('#load-file').addEventListener('click', () => guard(async () => {
    const file = $('#file-select').value;
    if (!file) throw new Error('choose a file');
    const { id } = await api('/datasets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ file }),
    });
    await openDataset(id);
  }));
  $('#upload').addEventListener('click', () => guard(async () => {
    const file = $('#upload-input').files[0];
    if (!file) throw new Error('choose a CSV file to upload');
    const { id } = await api(`/datasets?name=${encodeURIComponent(file.name)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: file,
    });
    await openDataset(id);
  }));
  for (const radio of $$('input[name="h-source"]')) radio.addEventListener('change', updateEditor);
  $('#h-type').addEventListener('change', updateEditor);
  $('#h-preview').addEventListener('click', () => guard(previewHierarchy));
  // Live preview: a change of the builder's parameters previews again (a
  // problem is shown in the preview, not as an error of the page).
  let timer = null;
  const live = () => {
    clearTimeout(timer);
    timer = setTimeout(() => previewHierarchy().catch((e) => {
      state.preview = null;
      $('#h-to-rows').hidden = true;
      $('#h-preview-out').replaceChildren(el('p', { class: 'problem', text: e.message }));
    }), 400);
  };
  for (const input of $$('#h-builder-fields input, #h-builder-fields select, #h-builder-fields textarea')) {
    input.addEventListener('input', live);
    input.addEventListener('change', live);
  }
  $('#h-apply').addEventListener('click', () => guard(applyHierarchy));
  $('#h-to-rows').addEventListener('click', previewToRows);
  $('#h-close').addEventListener('click', () => {
    $('#hierarchy-editor').hidden = true;
    $(`button[data-edit-for="${CSS.escape(state.editing)}"]`)?.focus();
  });
  for (const radio of $$('input[name="command"]')) radio.addEventListener('change', updateCommand);
  $('#a-transformation').addEventListener('change', updateEditor);
  $('#a-generalize-before').addEventListener('change', updateEditor);
  $('#delete-dataset').addEventListener('click', () => guard(deleteDataset));
  $('#run').addEventListener('click', () => guard(() => run(null)));
  $('#cancel').addEventListener('click', () => guard(cancel));
  $('#show-result').addEventListener('click', () => showStep('result'));
  updateCommand();
  document.body.dataset.ready = 'true';
  guard(loadFiles);
}

init();
