// Step 2, the inspection: once a table is open the server inspects it
// (POST /datasets/ID/inspect, the library's deid inspect): each column's
// type, the identifiers found and the suggested role with its reason, and
// the most identifying combinations. The suggestions can be accepted (the
// roles and hierarchy builders of the starter job fill step 3) or left.

import { $, api, el, enableSteps, number, percent, showStep, state } from './common.js';
import { renderColumnSelects, renderIdentifiers, renderRoles, renderSensitiveSelects, renderUtilitySelects } from './attributes.js';

const COMBINATIONS_SHOWN = 5;

// Inspects the dataset `id` and shows the step; the answer of a table
// opened meanwhile is dropped.
export async function inspectDataset(id) {
  state.inspection = null;
  delete document.body.dataset.inspected;
  $('#inspect-table tbody').replaceChildren();
  $('#inspect-combinations tbody').replaceChildren();
  $('#accept-suggestions').disabled = true;
  $('#inspect-status').textContent = 'Inspecting the table…';
  enableSteps('inspect');
  let answer;
  try {
    answer = await api(`/datasets/${id}/inspect`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
  } catch (e) {
    if (state.dataset?.id === id) $('#inspect-status').textContent = `The inspection failed: ${e.message}. Go on by hand.`;
    throw e;
  }
  if (state.dataset?.id !== id) return;
  state.inspection = answer;
  render();
  document.body.dataset.inspected = id;
  showStep('inspect');
}

function findings(column) {
  if (!column.identifiers.length) return '–';
  return el('ul', { class: 'findings' }, ...column.identifiers.map((f) =>
    el('li', { title: f.evidence },
      `(${f.hipaa}) ${f.type}, by ${f.method}, ${percent(f.confidence)}`,
      el('span', { class: 'hint', text: ` — ${f.evidence}` }))));
}

function render() {
  const inspection = state.inspection.inspection;
  const ids = inspection.columns.filter((c) => c.identifiers.length).length;
  $('#inspect-status').textContent =
    `${number(inspection.records)} records, ${inspection.columns.length} columns: ${ids} with an identifier, ` +
    `${inspection.quasi_identifiers.length} suggested quasi-identifying.`;
  $('#inspect-table tbody').replaceChildren(...inspection.columns.map((c) => {
    const type = c.date_format ? `${c.type} ${c.date_format}` : c.type;
    const bad = c.non_conforming ? `${number(c.non_conforming)} non-conforming` : null;
    return el('tr', { 'data-inspected': c.name },
      el('th', { scope: 'row', text: c.name }),
      el('td', {}, type, bad ? el('div', { class: 'hint', text: bad }) : null),
      el('td', { class: 'num', text: number(c.distinct) }),
      el('td', { class: 'num', text: number(c.missing) }),
      el('td', {}, findings(c)),
      el('td', { class: 'role', text: c.role }),
      el('td', { class: 'reason', text: c.reason }));
  }));
  const combinations = inspection.combinations.slice(0, COMBINATIONS_SHOWN);
  $('#inspect-combinations tbody').replaceChildren(...(combinations.length
    ? combinations.map((c) => el('tr', {},
        el('td', { text: c.columns.join(', ') }),
        el('td', { class: 'num', text: number(c.unique_records) }),
        el('td', { class: 'num', text: number(c.distinction) }),
        el('td', { class: 'num', text: number(c.separation) })))
    : [el('tr', {}, el('td', { colspan: '4', text: 'No column was suggested as quasi-identifying.' }))]));
  $('#accept-suggestions').disabled = false;
}

// The starter job's attributes become the roles and hierarchies of step 3:
// a builder as the hierarchy, the other keys (min-level) as its settings.
export function acceptSuggestions() {
  if (!state.inspection) return;
  const suggested = state.inspection.attributes || {};
  for (const c of state.dataset.columns) {
    const s = suggested[c.name];
    if (!s) continue;
    const { role, hierarchy, ...settings } = s;
    state.attributes[c.name] = { role, hierarchy: hierarchy ? { builder: hierarchy } : null, settings };
  }
  renderRoles();
  renderSensitiveSelects();
  renderIdentifiers();
  renderColumnSelects();
  renderUtilitySelects();
  showStep('attributes');
}
