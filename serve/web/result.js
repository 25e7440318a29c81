// Step 6, the result: the figures of the command that ran (anonymize,
// risk, suppress), the utility analysis, and the downloads.

import { $, API, api, el, enableSteps, figures, levels, number, percent, sameTransformation, state } from './common.js';
import { classSizes, parseCsv, plotFrontier } from './result_charts.js';

export async function showResult(status) {
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
    // app.js runs the release (step 5 shows this step when it ends).
    onclick: () => document.dispatchEvent(new CustomEvent('deid:release', { detail: t })),
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

function datasetStem() {
  const name = state.dataset.name.split('/').pop();
  return name.replace(/\.[^.]*$/, '') || 'dataset';
}
