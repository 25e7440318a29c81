// deid serve's web app: open a table, give roles and hierarchies, choose
// privacy models, run, explore the result, download. Plain ES module, no
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
  attributes: {},         // column -> {role, hierarchy: null | {file} | {builder}}
  editing: null,          // the column whose hierarchy is in the editor
  preview: null,          // its last preview
  job: null,              // the job being run or shown: {id, spec}
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
  for (const c of state.dataset.columns) state.attributes[c.name] = { role: 'insensitive', hierarchy: null };
  renderSummary();
  renderRoles();
  enableSteps('attributes', 'privacy');
  $('#dataset-name').textContent = `${state.dataset.name}: ${number(state.dataset.rows)} records`;
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
  if (!h) return '–';
  if (h.file) return h.file;
  if (h.rows) return `${h.rows.length} rows typed in`;
  const { type, ...rest } = h.builder;
  const params = Object.entries(rest).map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : v}`);
  return `${type}${params.length ? ` (${params.join(', ')})` : ''}`;
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
        if (a.role === 'quasi-identifying' && !a.hierarchy) a.hierarchy = defaultHierarchy(c.name);
        if (a.role === 'insensitive' || a.role === 'identifying') a.hierarchy = null;
        renderRoles();
        renderSensitiveSelects();
        $(`select[data-role-for="${CSS.escape(c.name)}"]`).focus();
      });
      const canHave = a.role === 'quasi-identifying' || a.role === 'sensitive';
      return el('tr', {},
        el('th', { scope: 'row', text: c.name }),
        el('td', {}, select),
        el('td', { text: canHave ? describeHierarchy(a.hierarchy) : '' }),
        el('td', {}, canHave
          ? el('button', { type: 'button', class: 'small', 'data-edit-for': c.name, text: 'Hierarchy…',
                           'aria-label': `Edit the hierarchy of ${c.name}`, onclick: () => openEditor(c.name) })
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

function openEditor(column) {
  state.editing = column;
  const a = state.attributes[column];
  const h = a.hierarchy || defaultHierarchy(column);
  $('#editor-title').textContent = `Hierarchy of ${column}`;
  const fileSelect = $('#h-file');
  fileSelect.replaceChildren(...state.files.map((f) => el('option', { value: f, text: f })));
  $('#h-source-file').disabled = state.files.length === 0;
  if (h.file) {
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

function updateEditor() {
  const source = $('input[name="h-source"]:checked')?.value || 'builder';
  $('#h-file-fields').hidden = source !== 'file';
  $('#h-builder-fields').hidden = source !== 'builder';
  $('#h-rows-fields').hidden = source !== 'rows';
  for (const p of $$('.params')) p.hidden = p.dataset.type !== $('#h-type').value;
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

function applyHierarchy() {
  const column = state.editing;
  state.attributes[column].hierarchy = editorHierarchy();
  showError('');
  $('#hierarchy-editor').hidden = true;
  renderRoles();
  $(`button[data-edit-for="${CSS.escape(column)}"]`)?.focus();
}

// ---- 3. the job --------------------------------------------------------------

function buildJob(transformation) {
  const attributes = {};
  for (const [name, a] of Object.entries(state.attributes)) {
    if (a.role === 'insensitive') continue;
    const spec = { role: a.role };
    if (a.hierarchy && (a.role === 'quasi-identifying' || a.role === 'sensitive'))
      spec.hierarchy = a.hierarchy.file ?? a.hierarchy.rows ?? a.hierarchy.builder;
    attributes[name] = spec;
  }
  const privacy = [];
  if ($('#m-k').checked) privacy.push({ 'k-anonymity': { k: Number($('#m-k-k').value) } });
  if ($('#m-l').checked) {
    const l = { attribute: $('#m-l-attr').value, variant: $('#m-l-variant').value, l: Number($('#m-l-l').value) };
    if (l.variant === 'recursive') l.c = Number($('#m-l-c').value);
    privacy.push({ 'l-diversity': l });
  }
  if ($('#m-t').checked)
    privacy.push({ 't-closeness': { attribute: $('#m-t-attr').value, distance: $('#m-t-distance').value, t: Number($('#m-t-t').value) } });
  if ($('#m-p').checked)
    privacy.push({ 'population-uniqueness': { threshold: Number($('#m-p-threshold').value),
      'population-size': Number($('#m-p-size').value), estimator: $('#m-p-estimator').value } });
  const search = { algorithm: $('#o-algorithm').value };
  if ($('#o-time').value) search['time-limit'] = `${Number($('#o-time').value)}s`;
  if ($('#o-checks').value) search['max-checks'] = Number($('#o-checks').value);
  if (transformation) search.transformation = transformation;
  return {
    dataset: state.dataset.id,
    attributes,
    'default-role': 'insensitive',
    privacy,
    'suppression-limit': Number($('#o-suppression').value || 0),
    quality: qualitySpec($('#o-quality').value),
    search,
  };
}

// ---- 4. run --------------------------------------------------------------------

async function run(transformation) {
  const spec = buildJob(transformation);
  const { id } = await api('/jobs', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(spec),
  });
  state.job = { id, spec };
  enableSteps('run');
  showStep('run');
  $('#run-what').textContent = transformation
    ? `Releasing the transformation ${levels(transformation)}.`
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
  const id = state.job.id;
  const r = await api(`/jobs/${id}/result`);
  state.result = r;
  enableSteps('result', 'downloads');
  const found = status.solution_found;
  const headline = found
    ? `Released: ${levels(r.transformation)}; information loss ${number(r.information_loss)} (${r.quality_model})` +
      `${r.optimal ? ', optimal' : ''}.`
    : 'No transformation satisfies the job: nothing was released (see the report).';
  $('#result-headline').textContent = headline;
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

  for (const [link, path, name] of [
    ['#dl-output', 'output', `${stem()}-deid.csv`],
    ['#dl-result', 'result', `${stem()}-deid.json`],
    ['#dl-report', 'report', `${stem()}-deid.html`],
    ['#dl-job', 'job.yaml', 'job.yaml'],
  ]) {
    const a = $(link);
    a.href = `${API}/jobs/${id}/${path}`;
    a.setAttribute('download', name);
  }
  $('#dl-output').parentElement.hidden = !found;
  const rows = Object.values(state.job.spec.attributes).some((a) => Array.isArray(a.hierarchy));
  $('#dl-job-item').hidden = rows;
  $('#dl-job-none').hidden = !rows;
  // The run step stays in view, with its outcome, until the user goes on.
  const next = $('#show-result');
  next.hidden = false;
  next.focus();
  document.body.dataset.resultJob = id;
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

function stem() {
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
  $('#run').addEventListener('click', () => guard(() => run(null)));
  $('#cancel').addEventListener('click', () => guard(cancel));
  $('#show-result').addEventListener('click', () => showStep('result'));
  document.body.dataset.ready = 'true';
  guard(loadFiles);
}

init();
