// deid serve's web app: open a table, see its inspection, give roles and
// hierarchies, choose the kind of job (anonymize, risk, suppress) and its
// settings, run, explore the result, download. Plain ES modules, one per
// step of the app (data.js, inspect.js, attributes.js, job.js, run.js,
// result.js with result_charts.js; common.js is what they share), no
// framework. This one wires the page's
// controls to the steps and starts the app.

import { $, $$, api, el, guard, showStep, state } from './common.js';
import { deleteDataset, loadFiles, openDataset } from './data.js';
import { acceptSuggestions } from './inspect.js';
import { applyHierarchy, previewHierarchy, previewToRows, updateEditor } from './attributes.js';
import { updateCommand } from './job.js';
import { cancel, run } from './run.js';
import { initShare } from './share.js';

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
  $('#accept-suggestions').addEventListener('click', acceptSuggestions);
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
  // A transformation of the result released (step 6's Release buttons).
  document.addEventListener('deid:release', (e) => guard(() => run(e.detail)));
  $('#cancel').addEventListener('click', () => guard(cancel));
  $('#show-result').addEventListener('click', () => showStep('result'));
  updateCommand();
  document.body.dataset.ready = 'true';
  guard(loadFiles);
  initShare();
}

init();
