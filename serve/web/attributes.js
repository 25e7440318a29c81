// Step 3, the attributes: each column's role, and the hierarchy editor
// (a file, a builder with its live preview, or rows) with the attribute's
// settings (levels, weight, microaggregation).

import { $, $$, api, el, lines, showError, state } from './common.js';

const ROLES = ['insensitive', 'quasi-identifying', 'sensitive', 'identifying'];
let previewSeq = 0;  // the latest hierarchy preview asked for

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

// What an identifying column becomes (docs/identifiers.md): removed, or
// released by an action. Pseudonyms and date shifts are keyed with the
// server's secret, so they are offered when it has one.
const ACTIONS = [
  { value: 'remove', text: 'removed', settings: {} },
  { value: 'pseudonym', text: 'pseudonym (keyed)', settings: { action: 'pseudonym' }, keyed: true },
  { value: 'keep-first', text: 'mask, keep the first characters', settings: { action: 'mask', 'keep-first': 3 } },
  { value: 'keep-last', text: 'mask, keep the last characters', settings: { action: 'mask', 'keep-last': 4 } },
  { value: 'digits', text: 'mask every digit', settings: { action: 'mask', digits: '#' } },
  { value: 'date-shift', text: 'date shifted per person', settings: { action: 'date-shift' }, keyed: true },
];

function actionOf(s) {
  if (s.action === 'mask') return s['keep-first'] !== undefined ? 'keep-first' : s['keep-last'] !== undefined ? 'keep-last' : 'digits';
  return s.action || 'remove';
}

// The action select of an identifying column, with the number of
// characters a mask keeps.
function actionControls(column, a) {
  const current = actionOf(a.settings);
  const select = el('select', { 'aria-label': `How ${column} is released`, 'data-action-for': column },
    ...ACTIONS.map((x) => el('option', {
      value: x.value, text: x.text, disabled: x.keyed && !state.secret && current !== x.value,
    })));
  select.value = current;
  select.addEventListener('change', () => {
    a.settings = { ...ACTIONS.find((x) => x.value === select.value).settings };
    renderRoles();
    renderIdentifiers();
    $(`select[data-action-for="${CSS.escape(column)}"]`).focus();
  });
  const keep = current === 'keep-first' || current === 'keep-last';
  if (!keep) return select;
  const n = el('input', { type: 'number', min: '0', max: '100', step: '1', value: String(a.settings[current]),
                          'aria-label': `Characters of ${column} kept`, class: 'narrow' });
  n.addEventListener('change', () => { a.settings[current] = Math.max(0, Math.round(Number(n.value) || 0)); });
  return el('span', {}, select, ' ', n);
}

// The person and the range of date shifts, shown while a column is
// shifted; and a note when pseudonyms need a secret the server lacks.
export function renderIdentifiers() {
  const shifted = Object.values(state.attributes).some((a) => a.role === 'identifying' && a.settings.action === 'date-shift');
  $('#identifiers-settings').hidden = !shifted;
  const person = $('#i-person');
  const old = person.value;
  const identifying = Object.entries(state.attributes).filter(([, a]) => a.role === 'identifying').map(([n]) => n);
  person.replaceChildren(...identifying.map((n) => el('option', { value: n, text: n })));
  if (identifying.includes(old)) person.value = old;
  $('#i-secret').textContent = state.secret
    ? `Pseudonyms and date shifts are keyed with the server's secret (fingerprint ${state.secret}).`
    : 'This server has no secret (deid serve --secret-file): identifying columns can be removed or masked.';
}

export function renderRoles() {
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
        renderIdentifiers();
        $(`select[data-role-for="${CSS.escape(c.name)}"]`).focus();
      });
      const canHave = a.role === 'quasi-identifying' || a.role === 'sensitive';
      return el('tr', {},
        el('th', { scope: 'row', text: c.name }),
        el('td', {}, select),
        a.role === 'identifying' ? el('td', {}, actionControls(c.name, a))
          : el('td', { text: canHave ? describeAttribute(a) : '' }),
        el('td', {}, canHave
          ? el('button', { type: 'button', class: 'small', 'data-edit-for': c.name, text: 'Settings…',
                           'aria-label': `Edit the hierarchy and settings of ${c.name}`, onclick: () => openEditor(c.name) })
          : null));
    }));
}

export function renderSensitiveSelects() {
  const sensitive = Object.entries(state.attributes).filter(([, a]) => a.role === 'sensitive').map(([n]) => n);
  for (const select of $$('.sensitive-select')) {
    const old = select.value;
    select.replaceChildren(...sensitive.map((n) => el('option', { value: n, text: n })));
    if (sensitive.includes(old)) select.value = old;
  }
}

// Every column as the options of the research subset's column select.
export function renderColumnSelects() {
  const columns = Object.keys(state.attributes);
  for (const select of $$('.column-select')) {
    const old = select.value;
    select.replaceChildren(...columns.map((n) => el('option', { value: n, text: n })));
    if (columns.includes(old)) select.value = old;
  }
}

// The columns released (every role but identifying) as the options of the
// utility analysis's selects, keeping what was chosen.
export function renderUtilitySelects() {
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

export function updateEditor() {
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

export async function previewHierarchy() {
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

export function previewToRows() {
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

export function applyHierarchy() {
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
