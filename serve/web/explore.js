// The data explorer (docs/share.md, "The data explorer"): one released
// table, read through the explorer's API in bounded pieces (a page of
// rows, a frequency table, a cross-tabulation). Nothing can be downloaded,
// copied or selected: there is no such endpoint, and the page stops the
// events that would copy, cut, drag, select or open a context menu.
import { barChart } from './explore_charts.js';

const $ = (s) => document.querySelector(s);
const state = { table: null, filters: [], sort: [], offset: 0, limit: 25, view: 'rows' };

for (const type of ['copy', 'cut', 'paste', 'contextmenu', 'dragstart', 'selectstart', 'drop'])
  document.addEventListener(type, (e) => {
    if (!(type === 'selectstart' && e.target instanceof HTMLInputElement)) e.preventDefault();
  }, true);
document.addEventListener('keydown', (e) => {
  // Save, print, open: the kiosk's policy refuses them; the page asks nothing of the browser either.
  if ((e.ctrlKey || e.metaKey) && ['s', 'p', 'o'].includes(e.key.toLowerCase())) e.preventDefault();
}, true);

function el(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

function showError(message) {
  $('#error').textContent = message;
  $('#error').hidden = !message;
}

function query(extra = {}) {
  const p = new URLSearchParams();
  for (const f of state.filters) p.append(`${f.op}.${f.column}`, f.value);
  for (const [k, v] of Object.entries(extra)) {
    if (Array.isArray(v)) v.forEach((x) => p.append(k, x));
    else p.append(k, v);
  }
  return p.toString();
}

async function api(path, params = '') {
  const response = await fetch(`/api/v1/${path}${params ? `?${params}` : ''}`, { credentials: 'same-origin' });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `${response.status}`);
  return body;
}

async function guard(action) {
  showError('');
  try { await action(); } catch (e) { showError(e.message); }
}

const numeric = (name) => state.table.columns.find((c) => c.name === name)?.type === 'number';
const share = (x) => `${(100 * x).toLocaleString('en', { maximumFractionDigits: 1 })} %`;

function fillColumns(select, selected) {
  select.replaceChildren(...state.table.columns.map((c) =>
    el('option', { value: c.name, text: c.name, selected: c.name === selected })));
}

function renderFilters() {
  $('#filter-list').replaceChildren(...state.filters.map((f, i) => el('li', {},
    `${f.column} ${{ eq: '=', has: 'contains', min: '≥', max: '≤' }[f.op]} "${f.value}"`,
    el('button', { type: 'button', text: 'Remove', onclick: () => { state.filters.splice(i, 1); refresh(true); } }))));
}

async function showRows() {
  const sort = state.sort.map((k) => `${k.desc ? 'desc' : 'asc'}:${k.column}`);
  const page = await api('rows', query({ offset: state.offset, limit: state.limit, sort }));
  const head = el('tr', {}, ...page.columns.map((name) => {
    const k = state.sort.findIndex((s) => s.column === name);
    const mark = k < 0 ? '' : `${state.sort[k].desc ? ' ▼' : ' ▲'}${state.sort.length > 1 ? k + 1 : ''}`;
    return el('th', { scope: 'col', class: 'sortable', text: name + mark, onclick: (e) => sortBy(name, e.shiftKey) });
  }));
  $('#rows-table thead').replaceChildren(head);
  $('#rows-table tbody').replaceChildren(...page.rows.map((row) => el('tr', {}, ...row.map((v, c) =>
    el('td', { class: numeric(page.columns[c]) ? 'number' : null, text: v })))));
  const last = Math.min(page.total, page.offset + page.rows.length);
  $('#page-status').textContent = page.total === 0 ? 'no rows pass the filters'
    : `rows ${page.offset + 1}–${last} of ${page.total}`;
  $('#page-prev').disabled = page.offset === 0;
  $('#page-next').disabled = last >= page.total;
}

function sortBy(column, add) {
  const k = state.sort.findIndex((s) => s.column === column);
  if (!add) state.sort = k >= 0 ? [{ column, desc: !state.sort[k].desc }] : [{ column, desc: false }];
  else if (k >= 0) state.sort[k].desc = !state.sort[k].desc;
  else state.sort.push({ column, desc: false });
  state.offset = 0;
  guard(showRows);
}

async function showFrequencies() {
  const column = $('#freq-column').value;
  const f = await api('frequencies', query({ column }));
  const rows = f.values.map((v) => el('tr', {}, el('td', { text: v.value === '' ? '(missing)' : v.value }),
    el('td', { class: 'number', text: v.count }), el('td', { class: 'number', text: share(v.share) })));
  if (f.other) rows.push(el('tr', {}, el('td', { text: `(${f.other.values} other values)` }),
    el('td', { class: 'number', text: f.other.count }), el('td', { class: 'number', text: share(f.other.count / f.total) })));
  rows.push(el('tr', {}, el('th', { scope: 'row', text: 'Total' }), el('td', { class: 'number', text: f.total }),
    el('td', { class: 'number', text: f.total ? '100 %' : '–' })));
  $('#freq-table tbody').replaceChildren(...rows);
  $('#freq-chart').replaceChildren(barChart(f.values.slice(0, 40).map((v) => ({ label: v.value, count: v.count }))));
}

async function showCrosstab() {
  const x = await api('crosstab', query({ row: $('#cross-row').value, column: $('#cross-column').value }));
  const name = (v) => (v === '' ? '(missing)' : v);
  $('#cross-table thead').replaceChildren(el('tr', {}, el('th', { scope: 'col', text: `${x.row} \\ ${x.column}` }),
    ...x.column_values.map((v) => el('th', { scope: 'col', text: name(v) })), el('th', { scope: 'col', text: 'Total' })));
  const body = x.row_values.map((v, i) => el('tr', {}, el('th', { scope: 'row', text: name(v) }),
    ...x.counts[i].map((n) => el('td', { class: 'number', text: n })), el('td', { class: 'number', text: x.row_totals[i] })));
  body.push(el('tr', {}, el('th', { scope: 'row', text: 'Total' }),
    ...x.column_totals.map((n) => el('td', { class: 'number', text: n })), el('td', { class: 'number', text: x.total })));
  $('#cross-table tbody').replaceChildren(...body);
}

function refresh(filtersChanged = false) {
  if (filtersChanged) { state.offset = 0; renderFilters(); }
  const show = { rows: showRows, frequencies: showFrequencies, crosstab: showCrosstab }[state.view];
  guard(show);
}

function choose(view) {
  state.view = view;
  for (const tab of document.querySelectorAll('.tab'))
    if (tab.dataset.view === view) tab.setAttribute('aria-current', 'page'); else tab.removeAttribute('aria-current');
  for (const v of ['rows', 'frequencies', 'crosstab']) $(`#view-${v}`).hidden = v !== view;
  refresh();
}

async function start() {
  state.table = await api('table');
  const t = state.table;
  $('#table-name').textContent = `${t.name}: ${t.rows.toLocaleString('en')} rows, ${t.columns.length} columns`;
  const names = t.columns.map((c) => c.name);
  fillColumns($('#filter-column'), names[0]);
  fillColumns($('#freq-column'), names[0]);
  fillColumns($('#cross-row'), names[0]);
  fillColumns($('#cross-column'), names[Math.min(1, names.length - 1)]);
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => choose(tab.dataset.view));
  $('#filter-add').addEventListener('click', () => {
    const column = $('#filter-column').value, op = $('#filter-op').value, value = $('#filter-value').value;
    if ((op === 'min' || op === 'max') && !numeric(column)) { showError(`'${column}' is not numeric`); return; }
    state.filters.push({ column, op, value });
    $('#filter-value').value = '';
    refresh(true);
  });
  $('#page-prev').addEventListener('click', () => { state.offset = Math.max(0, state.offset - state.limit); refresh(); });
  $('#page-next').addEventListener('click', () => { state.offset += state.limit; refresh(); });
  $('#page-size').addEventListener('change', (e) => { state.limit = Number(e.target.value); state.offset = 0; refresh(); });
  for (const id of ['#freq-column', '#cross-row', '#cross-column']) $(id).addEventListener('change', () => refresh());
  // #frequencies or #crosstab in the address opens that view.
  const view = window.location.hash.slice(1);
  choose(['rows', 'frequencies', 'crosstab'].includes(view) ? view : 'rows');
}

guard(start);
