// Step 4, the job: the kind of job (anonymize, risk, suppress), its
// privacy models and settings, and the job they make (docs/job-file.md).

import { $, assignments, lines, state } from './common.js';

// The quality option as the job's quality section: "<model>-monotonic"
// selects a model's monotonic variant (docs/quality-models.md).
function qualitySpec(value) {
  return value.endsWith('-monotonic')
    ? { model: value.slice(0, -'-monotonic'.length), monotonic: true }
    : { model: value };
}

const command = () => $('input[name="command"]:checked').value;

// Shows the settings of the kind of job chosen.
export function updateCommand() {
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
export function buildJob(transformation) {
  const c = transformation ? 'anonymize' : command();
  const attributes = {};
  for (const [name, a] of Object.entries(state.attributes)) {
    if (a.role === 'insensitive') continue;
    // A suppress job releases every quasi-identifier as it is (level 0):
    // the roles only; an identifying column's action is for anonymize jobs.
    const spec = c === 'suppress' || (c !== 'anonymize' && a.role === 'identifying')
      ? { role: a.role } : { role: a.role, ...a.settings };
    if (c !== 'suppress' && a.hierarchy && (a.role === 'quasi-identifying' || a.role === 'sensitive'))
      spec.hierarchy = a.hierarchy.file ?? a.hierarchy.rows ?? a.hierarchy.builder;
    attributes[name] = spec;
  }
  const job = { dataset: state.dataset.id, attributes, 'default-role': 'insensitive' };
  // Date shifts move by one offset per person; the server adds its secret.
  if (c === 'anonymize' && Object.values(attributes).some((a) => a.action === 'date-shift'))
    job.identifiers = { person: $('#i-person').value, 'shift-days': Number($('#i-days').value) };
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
