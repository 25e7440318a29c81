// Step 5, run: the job is sent, its progress followed through the server's
// event stream until it ends, or cancelled.

import { $, API, api, enableSteps, guard, levels, number, showError, showStep, state } from './common.js';
import { buildJob } from './job.js';
import { showResult } from './result.js';

export async function run(transformation) {
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

export async function cancel() {
  if (!state.job) return;
  await api(`/jobs/${state.job.id}`, { method: 'DELETE' });
}
