// Step 1, the data: a CSV file of the server's data directory or an
// upload becomes a dataset; its summary is shown and it is inspected
// (step 2, inspect.js), or it is deleted.

import { $, $$, api, el, enableSteps, number, state } from './common.js';
import { inspectDataset } from './inspect.js';
import { renderColumnSelects, renderIdentifiers, renderRoles, renderSensitiveSelects, renderUtilitySelects } from './attributes.js';

export async function loadFiles() {
  try {
    state.files = (await api('/files')).files;
  } catch (e) {
    state.files = [];
  }
  try {
    state.secret = (await api('/version')).secret_fingerprint ?? null;
  } catch (e) {
    state.secret = null;
  }
  const select = $('#file-select');
  select.replaceChildren(...state.files.map((f) => el('option', { value: f, text: f })));
  const tables = state.files.filter((f) => !f.includes('/'));
  if (tables.length) select.value = tables[0];
  $('#load-file').disabled = state.files.length === 0;
  if (!state.files.length) select.append(el('option', { value: '', text: '(no --data-dir, or no CSV in it)' }));
}

export async function openDataset(id) {
  state.dataset = await api(`/datasets/${id}`);
  document.body.dataset.dataset = id;
  state.attributes = {};
  for (const c of state.dataset.columns) state.attributes[c.name] = { role: 'insensitive', hierarchy: null, settings: {} };
  $('#data-status').textContent = '';
  renderSummary();
  renderRoles();
  renderSensitiveSelects();
  renderIdentifiers();
  renderColumnSelects();
  renderUtilitySelects();
  enableSteps('attributes', 'privacy');
  $('#dataset-name').textContent = `${state.dataset.name}: ${number(state.dataset.rows)} records`;
  await inspectDataset(id);
}

// DELETE /datasets/ID: the table, its jobs and their files leave the
// server; the app goes back to an empty step 1.
export async function deleteDataset() {
  const d = state.dataset;
  if (!d) return;
  if (state.events) state.events.close();
  await api(`/datasets/${d.id}`, { method: 'DELETE' });
  state.dataset = null;
  state.job = null;
  state.result = null;
  state.inspection = null;
  state.attributes = {};
  delete document.body.dataset.dataset;
  delete document.body.dataset.inspected;
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
