// The browser test of deid serve's web app (docs/web.md): Debian's Chromium,
// headless, driven by puppeteer-core through a whole session on adult:
// upload a small table, see its inspection and accept the suggested roles
// and hierarchies, then open adult from the data directory, see its
// inspection and go on by hand: give roles, build the age hierarchy inline (intervals, previewed) with a weight
// and take the others from files, cancel a job queued behind one that cannot
// end in the test's time, run 5-anonymity, release another of the best
// solutions, download the released table and the job as YAML, and compare
// the table byte for byte with what `deid anonymize` writes for that
// job.yaml; then run a risk job and a suppress job and compare their JSON
// and table with what `deid risk` and `deid suppress` write for their
// job.yaml, and delete the table from the server. A
// screenshot of each step goes to ARTIFACTS/step-N.png, that of adult's
// inspection to ARTIFACTS/inspection.png.
//
//   node session.test.mjs --deid build/deid --examples examples --artifacts build/tests/web-artifacts
//
// Exit code 0 when the session passes, 1 otherwise (also when puppeteer-core
// is not installed: scripts/install-deps.sh --test installs it).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const deid = path.resolve(args.deid || 'build/deid');
const examples = path.resolve(args.examples || path.join(here, '../../examples'));
const artifacts = path.resolve(args.artifacts || 'web-artifacts');
const chromium = process.env.DEID_CHROMIUM || '/usr/bin/chromium';
const token = 'webtest' + Math.random().toString(16).slice(2) + Math.random().toString(16).slice(2);

function fail(message) {
  console.error(`web_session: FAILED: ${message}`);
  process.exitCode = 1;
}

let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch (e) {
  fail(`puppeteer-core is not installed in ${path.join(here, 'node_modules')} (${e.message.split('\n')[0]}); ` +
       'run scripts/install-deps.sh --test, or: cd tests/web && PUPPETEER_SKIP_DOWNLOAD=1 npm ci');
  process.exit(1);
}
if (!fs.existsSync(chromium)) {
  fail(`no Chromium at ${chromium} (Debian's chromium package; or set DEID_CHROMIUM)`);
  process.exit(1);
}

fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'deid-web-test-'));
const downloads = path.join(work, 'downloads');
fs.mkdirSync(downloads);

let server = null, browser = null, page = null;
const cleanup = () => {
  if (server && server.exitCode === null) server.kill('SIGTERM');
  fs.rmSync(work, { recursive: true, force: true });
};
process.on('exit', () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { cleanup(); process.exit(1); });

// Starts `deid serve` on a free loopback port; resolves with its address.
function startServer() {
  return new Promise((resolve, reject) => {
    server = spawn(deid, ['serve', '--host', '127.0.0.1', '--port', '0', '--token', token,
                          '--data-dir', path.join(examples, 'adult'), '--state-dir', work, '--workers', '1'],
                   { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('deid serve printed no address within 30 s')), 30000);
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/open (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.on('exit', (code) => reject(new Error(`deid serve exited with ${code} before listening: ${out}`)));
    server.on('error', reject);
  });
}

async function waitForFile(file, seconds = 60) {
  for (let i = 0; i < seconds * 10; ++i) {
    if (fs.existsSync(file) && !fs.existsSync(`${file}.crdownload`)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path.basename(file)} was not downloaded within ${seconds} s`);
}

let step = 0;
async function shot(page, what) {
  ++step;
  await page.screenshot({ path: path.join(artifacts, `step-${step}.png`) });
  console.log(`web_session: step ${step}: ${what}`);
}

async function session(url) {
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1280,800',
           '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
           '--disable-quic'],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const problems = [];
  // Error responses the test asks for on purpose.
  const expected = new Set();
  page.on('console', (m) => { if (m.type() === 'error' && !expected.has(m.location()?.url)) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('response', (r) => {
    if (r.status() >= 400 && !expected.has(r.url())) problems.push(`${r.status()} for ${r.url()}`);
  });
  page.on('requestfailed', (r) => { if (!r.url().includes('/events')) problems.push(`request failed: ${r.url()}`); });
  page.setDefaultTimeout(60000);
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });

  // 1. Open adult.csv of the data directory.
  const response = await page.goto(url, { waitUntil: 'load' });
  const csp = response.headers()['content-security-policy'] || '';
  if (!csp.includes("script-src 'self'")) throw new Error(`the page came without a strict CSP: '${csp}'`);
  await page.waitForSelector('body[data-ready] #file-select option[value="adult.csv"]');
  // Keyboard: Tab reaches the skip link, then the steps, with a visible focus ring.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => {
    const e = document.activeElement;
    return { text: e.textContent, outline: getComputedStyle(e).outlineStyle };
  });
  if (focused.text !== '1. Data' || focused.outline === 'none')
    throw new Error(`the second Tab focused '${focused.text}' (outline ${focused.outline})`);
  // An upload shows its summary (the file name it was sent with) ...
  const input = await page.$('#upload-input');
  const people = path.join(work, 'people.csv');
  fs.writeFileSync(people, 'name,age\nann,34\nbob,35\ncid,36\n');
  await input.uploadFile(people);
  await page.click('#upload');
  await page.waitForFunction(() => document.querySelector('#summary-rows').textContent.startsWith('people.csv: 3 records'));
  // ... and is inspected (step 2): types, identifiers, suggested roles with their reasons.
  const inspected = () => document.body.dataset.step === 'inspect' && document.body.dataset.dataset &&
    document.body.dataset.inspected === document.body.dataset.dataset;
  await page.waitForFunction(inspected);
  const people_rows = await page.$$eval('#inspect-table tbody tr', (rows) => rows.map((r) => ({
    name: r.children[0].textContent, type: r.children[1].textContent, ids: r.children[4].textContent,
    role: r.children[5].textContent, reason: r.children[6].textContent })));
  if (people_rows.length !== 2 || people_rows[0].role !== 'identifying' || !people_rows[0].ids.includes('(A) names') ||
      !people_rows[0].reason.includes('HIPAA') || people_rows[1].role !== 'quasi-identifying' ||
      people_rows[1].type !== 'integer')
    throw new Error(`people.csv's inspection: ${JSON.stringify(people_rows)}`);
  // Accepted, the suggestions fill step 3: name removed, age with the starter job's intervals.
  await page.click('#accept-suggestions');
  await page.waitForSelector('#step-attributes:not([hidden])');
  const accepted = await page.$$eval('#roles-table tbody tr', (rows) => rows.map((r) =>
    [r.querySelector('select[data-role-for]').value, r.children[2].textContent]));
  if (accepted.length !== 2 || accepted[0][0] !== 'identifying' || accepted[1][0] !== 'quasi-identifying' ||
      !accepted[1][1].startsWith('intervals (') || !accepted[1][1].includes('min: 34'))
    throw new Error(`the accepted suggestions: ${JSON.stringify(accepted)}`);
  await page.click('.step[data-step="data"]');
  // ... and so does a file of the data directory, the one the session goes on with.
  await page.select('#file-select', 'adult.csv');
  await page.click('#load-file');
  await page.waitForFunction(() => document.querySelector('#summary-rows').textContent.startsWith('adult.csv: 30,162 records'));
  const types = await page.$$eval('#columns-table tbody tr', (rows) => rows.map((r) => r.children[1].textContent));
  if (types[1] !== 'integer' || types[0] !== 'string') throw new Error(`detected types: ${types}`);
  // adult's inspection: the demographic columns suggested quasi-identifying, its combinations measured.
  await page.waitForFunction(inspected);
  const roles_of = Object.fromEntries(await page.$$eval('#inspect-table tbody tr', (rows) =>
    rows.map((r) => [r.children[0].textContent, r.children[5].textContent])));
  for (const column of ['sex', 'age', 'race', 'marital-status', 'education'])
    if (roles_of[column] !== 'quasi-identifying') throw new Error(`adult's suggested roles: ${JSON.stringify(roles_of)}`);
  if ((await page.$$('#inspect-combinations tbody tr')).length !== 5) throw new Error('no combinations shown');
  await page.screenshot({ path: path.join(artifacts, 'inspection.png') });
  console.log('web_session: adult.csv inspected: types, identifiers, suggested roles');
  await page.click('.step[data-step="data"]');
  await shot(page, 'adult.csv opened: columns, types, distinct values, sample');
  await page.click('button[data-next="inspect"]');

  // 2. Roles by hand: five quasi-identifiers; age with an intervals builder, the others from files.
  await page.click('button[data-next="attributes"]');
  if ((await page.$$eval('#roles-table select[data-role-for]', (s) => s.map((x) => x.value))).some((r) => r !== 'insensitive'))
    throw new Error('by hand, every column starts insensitive');
  for (const column of ['sex', 'age', 'race', 'marital-status', 'education'])
    await page.select(`select[data-role-for="${column}"]`, 'quasi-identifying');
  // An identifying column is removed or masked here: pseudonyms and date
  // shifts need the server's secret (--secret-file), which this one lacks.
  await page.select('select[data-role-for="native-country"]', 'identifying');
  await page.select('select[data-action-for="native-country"]', 'keep-first');
  const action = await page.$eval('select[data-action-for="native-country"]', (s) => ({
    value: s.value, pseudonym: s.querySelector('option[value="pseudonym"]').disabled,
    kept: s.parentElement.querySelector('input')?.value,
  }));
  if (action.value !== 'keep-first' || !action.pseudonym || action.kept !== '3')
    throw new Error(`native-country's action: ${JSON.stringify(action)}`);
  if (!(await page.$eval('#i-secret', (e) => e.textContent)).includes('has no secret'))
    throw new Error('the page does not say that the server has no secret');
  await page.select('select[data-role-for="native-country"]', 'insensitive');
  await page.click('button[data-edit-for="age"]');
  await page.click('#h-source-builder');
  await page.select('#h-type', 'intervals');
  const setValue = async (selector, value) => {
    await page.$eval(selector, (e) => { e.value = ''; });
    await page.type(selector, value);
  };
  await setValue('#h-min', '0');
  await setValue('#h-max', '100');
  await setValue('#h-widths', '10, 20, 40');
  // A setting of the attribute: age weighs more than the others (0.5).
  await setValue('#a-weight', '1');
  await page.click('#h-preview');
  await page.waitForSelector('#h-preview-table tbody tr');
  const first = await page.$eval('#h-preview-table tbody tr', (r) => [...r.children].map((c) => c.textContent));
  if (first[0] !== '39' || first[1] !== '[30, 40)') throw new Error(`preview row of 39: ${first}`);
  await shot(page, 'roles set; the age hierarchy built with intervals, previewed');
  // The preview can become rows typed in; back to the builder for a job file.
  await page.click('#h-to-rows');
  const rows = await page.$eval('#h-rows', (t) => t.value);
  if (!rows.startsWith('39;[30, 40);[20, 40);[0, 40);*\n')) throw new Error(`rows: ${rows.slice(0, 60)}`);
  await page.click('#h-source-builder');
  await page.click('#h-apply');
  const described = await page.$$eval('#roles-table tbody tr', (rows) => rows.map((r) => r.children[2].textContent));
  if (!described[0].includes('hierarchies/sex.csv') || !described[1].startsWith('intervals') ||
      !described[1].endsWith('; weight 1'))
    throw new Error(`hierarchies: ${described}`);

  // 3. 5-anonymity, 5 % suppression, loss, exhaustive search (the whole frontier).
  await page.click('button[data-next="privacy"]');
  await setValue('#m-k-k', '5');
  // A dataset-level model beside k-anonymity (k = 5 leaves no sample unique,
  // so the optimum is k-anonymity's; job.yaml must carry it to the CLI).
  await page.click('#m-su');
  await setValue('#m-su-threshold', '0.01');
  await setValue('#o-suppression', '0.05');
  await page.select('#o-algorithm', 'exhaustive');
  await shot(page, 'privacy models, quality model and search');

  // 4. Cancel: the app's job waits in the queue (the server has one
  // worker) behind a job that cannot end in the test's time (an exhaustive
  // search of the more than 3^24 transformations of 24 masked columns of a
  // generated table), so the app's Cancel finds it queued; the long job is
  // cancelled through the API afterwards.
  const blocker = await page.evaluate(async () => {
    const columns = Array.from({ length: 24 }, (_, i) => `c${i}`);
    let csv = `${columns.join(',')}\n`;
    let seed = 1;
    for (let r = 0; r < 200; ++r) {
      csv += `${columns.map(() => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return String(seed % 100).padStart(2, '0');
      }).join(',')}\n`;
    }
    const post = async (path, type, body) =>
      (await fetch(path, { method: 'POST', headers: { 'Content-Type': type }, body })).json();
    const table = await post('/api/v1/datasets?name=blocker.csv', 'text/csv', csv);
    const attributes = Object.fromEntries(columns.map((c) => [c, { role: 'quasi-identifying', hierarchy: { type: 'masking' } }]));
    const job = await post('/api/v1/jobs', 'application/json', JSON.stringify({
      dataset: table.id, attributes, privacy: [{ 'k-anonymity': { k: 5 } }], search: { algorithm: 'exhaustive' } }));
    return job.id;
  });
  const jobStatus = (id) => page.evaluate(async (job) => (await (await fetch(`/api/v1/jobs/${job}`)).json()).status, id);
  const waitForStatus = async (id, wanted) => {
    for (let i = 0; i < 600; ++i) {
      const status = await jobStatus(id);
      if (status === wanted) return;
      if (['done', 'failed', 'cancelled'].includes(status)) throw new Error(`job ${id} ended ${status}, not ${wanted}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`job ${id} was not ${wanted} within 60 s`);
  };
  await waitForStatus(blocker, 'running');
  await page.click('#run');
  await page.waitForFunction(() => /^queued/.test(document.querySelector('#run-status').textContent));
  await page.click('#cancel');
  await page.waitForFunction(() => /^(cancelled|done|failed)/.test(document.querySelector('#run-status').textContent));
  const ended = await page.$eval('#run-status', (p) => p.textContent);
  if (!ended.startsWith('cancelled')) throw new Error(`the queued job was not cancelled: ${ended}`);
  if ((await jobStatus(blocker)) !== 'running') throw new Error('the long job ended before the queued one was cancelled');
  const cancelLong = await page.evaluate(async (id) => (await fetch(`/api/v1/jobs/${id}`, { method: 'DELETE' })).status, blocker);
  if (cancelLong !== 202) throw new Error(`cancelling the long job: ${cancelLong}`);
  await waitForStatus(blocker, 'cancelled');
  console.log('web_session: the queued job was cancelled by the app, the running one through the API');

  // 5. Run: progress, then the result.
  await page.click('.step[data-step="privacy"]');
  await page.click('#run');
  await page.waitForSelector('body[data-step="run"]');
  await page.waitForSelector('body[data-result-job]');
  const firstJob = await page.$eval('body', (b) => b.dataset.resultJob);
  await shot(page, 'the run: progress, done');
  await page.click('#show-result');
  await page.waitForSelector('#best-table tbody tr:nth-child(2) button:not([disabled])');
  // The class sizes counted in the released table agree with the result's classes.
  const counted = await page.$$eval('#sizes-table tbody tr', (rows) =>
    rows.reduce((n, r) => n + Number(r.children[1].textContent.replace(/,/g, '')), 0));
  const classes = await page.$eval('#class-figures', (d) => d.children[5].textContent.replace(/,/g, ''));
  if (String(counted) !== classes) throw new Error(`class sizes count ${counted} classes, the result ${classes}`);
  await shot(page, 'the result: transformation, loss per attribute, classes, frontier, best solutions');
  const optimum = await page.$eval('#best-table tbody tr:first-child td', (td) => td.textContent);

  // 6. Release the second best solution.
  await page.click('#best-table tbody tr:nth-child(2) button');
  await page.waitForFunction((id) => document.body.dataset.resultJob && document.body.dataset.resultJob !== id,
                             {}, firstJob);
  await page.click('#show-result');
  await page.waitForSelector('body[data-step="result"]');
  const chosen = await page.$eval('#best-table tbody tr.chosen td', (td) => td.textContent);
  if (chosen === optimum) throw new Error(`the second solution was not released (${chosen})`);
  await shot(page, `another solution released: ${chosen}`);

  // 7. Downloads.
  await page.click('.step[data-step="downloads"]');
  await page.waitForSelector('#step-downloads:not([hidden])');
  await shot(page, 'downloads');
  // Each job's downloads have the same names: each is kept under its own.
  const download = async (link, name, keep) => {
    await page.click(link);
    await waitForFile(path.join(downloads, name));
    fs.renameSync(path.join(downloads, name), path.join(downloads, keep));
  };
  await download('#dl-output', 'adult-deid.csv', 'anonymized.csv');
  await download('#dl-job', 'job.yaml', 'anonymize-job.yaml');
  // Runs the job of step 3 and shows its result.
  const runJob = async () => {
    const before = await page.$eval('body', (b) => b.dataset.resultJob);
    await page.click('#run');
    await page.waitForFunction((id) => document.body.dataset.resultJob && document.body.dataset.resultJob !== id,
                               {}, before);
    await page.click('#show-result');
  };

  // 8. A risk job on the same attributes and models: its figures, its JSON
  // and its job file.
  await page.click('.step[data-step="privacy"]');
  await page.click('#c-risk');
  const shown = await page.$$eval('#step-privacy > div', (divs) => divs.filter((d) => !d.hidden).map((d) => d.id));
  if (shown.join() !== 'risk-options,privacy-options') throw new Error(`the risk job shows ${shown}`);
  await runJob();
  await page.waitForSelector('#result-risk:not([hidden]) #risk-attackers tbody tr');
  const riskFigures = await page.$eval('#risk-figures', (d) => d.textContent);
  if (!riskFigures.includes('Records30,162') || !riskFigures.includes('sex, age, race, marital-status, education'))
    throw new Error(`risk figures: ${riskFigures}`);
  await shot(page, 'a risk job: the risk of adult over the same quasi-identifiers');
  await page.click('.step[data-step="downloads"]');
  if (!(await page.$eval('#dl-output', (a) => a.parentElement.hidden))) throw new Error('a risk job offers a table');
  await download('#dl-result', 'adult-risk.json', 'risk.json');
  await download('#dl-job', 'job.yaml', 'risk-job.yaml');

  // 9. A suppress job: 5-anonymous combinations of the quasi-identifiers
  // (age and sex, and the three others), its figures and released table.
  await page.click('.step[data-step="privacy"]');
  await page.click('#c-suppress');
  await setValue('#s-k', '5');
  await setValue('#s-combinations', 'age, sex\nrace, marital-status, education');
  await runJob();
  await page.waitForSelector('#result-suppress:not([hidden]) #suppress-table tbody tr');
  const suppressed = await page.$eval('#suppress-figures', (d) => d.textContent);
  if (!suppressed.includes('k5') || !suppressed.includes('Combinations2')) throw new Error(`suppress figures: ${suppressed}`);
  const released = await page.$$eval('#suppress-table tbody tr', (rows) => rows.length);
  if (released !== 20) throw new Error(`the suppress result shows ${released} records, not the first 20`);
  await shot(page, 'a suppress job: cells suppressed until the combinations are 5-anonymous');
  await page.click('.step[data-step="downloads"]');
  if (!(await page.$eval('#dl-report', (a) => a.parentElement.hidden))) throw new Error('a suppress job offers a report');
  await download('#dl-output', 'adult-deid.csv', 'suppressed.csv');
  await download('#dl-job', 'job.yaml', 'suppress-job.yaml');

  // 10. More settings: age microaggregated (its mean, no hierarchy),
  // education released at level 1 at most, salary-class predicted by the
  // utility analysis; an anonymize job with them.
  await page.click('.step[data-step="attributes"]');
  await page.click('button[data-edit-for="age"]');
  await page.select('#a-transformation', 'microaggregation');
  await page.select('#a-function', 'mean');
  if (!(await page.$eval('#h-source-fields', (f) => f.hidden)) || await page.$eval('#a-micro-fields', (f) => f.hidden))
    throw new Error('microaggregation without generalize-before still shows the hierarchy');
  await shot(page, 'the settings of age: microaggregation, its aggregate, weight, without a hierarchy');
  await page.click('#h-apply');
  await page.click('button[data-edit-for="education"]');
  await setValue('#a-max-level', '1');
  await page.click('#h-apply');
  const settings = await page.$$eval('#roles-table tbody tr', (rows) => rows.map((r) => r.children[2].textContent));
  if (settings[1] !== 'microaggregation: mean; weight 1' || !settings[4].endsWith('; levels 0 to 1'))
    throw new Error(`settings: ${settings}`);
  await page.click('.step[data-step="privacy"]');
  await page.click('#c-anonymize');
  await page.select('#o-utility-target', 'salary-class');
  await runJob();
  await page.waitForSelector('#result-anonymize:not([hidden]) #utility-classification tbody tr');
  const target = await page.$eval('#utility-classification tbody th', (th) => th.textContent);
  if (target !== 'salary-class') throw new Error(`utility target: ${target}`);
  const micro = await page.evaluate(async (id) => (await (await fetch(`/api/v1/jobs/${id}/result`)).json()),
                                    await page.$eval('body', (b) => b.dataset.resultJob));
  if (micro.microaggregated?.age?.function !== 'mean' || 'age' in micro.transformation ||
      !(micro.transformation.education <= 1))
    throw new Error(`microaggregation and bounds: ${JSON.stringify(micro.microaggregated)} ${JSON.stringify(micro.transformation)}`);

  // 11. Delete the table from the server: the app goes back to step 1.
  const dataset = await page.$eval('body', (b) => b.dataset.dataset);
  await page.click('.step[data-step="data"]');
  await page.click('#delete-dataset');
  await page.waitForFunction(() => /was deleted/.test(document.querySelector('#data-status').textContent));
  const enabled = await page.$$eval('.step', (steps) => steps.filter((b) => !b.disabled).map((b) => b.dataset.step));
  if (enabled.join() !== 'data') throw new Error(`steps still open after the delete: ${enabled}`);
  const gone = `${new URL(page.url()).origin}/api/v1/datasets/${dataset}`;
  expected.add(gone);
  const after = await page.evaluate(async (url) => (await fetch(url)).status, gone);
  if (after !== 404) throw new Error(`the deleted dataset answers ${after}`);

  if (problems.length) throw new Error(`the page reported errors: ${problems.join('; ')}`);
  return chosen;
}

try {
  const url = await startServer();
  const chosen = await session(url);
  // The job as YAML, beside a copy of the data and its hierarchies, run by the CLI.
  const cli = path.join(work, 'cli');
  fs.mkdirSync(cli);
  fs.copyFileSync(path.join(examples, 'adult', 'adult.csv'), path.join(cli, 'adult.csv'));
  fs.cpSync(path.join(examples, 'adult', 'hierarchies'), path.join(cli, 'hierarchies'), { recursive: true });
  const yaml = fs.readFileSync(path.join(downloads, 'anonymize-job.yaml'), 'utf8');
  fs.writeFileSync(path.join(artifacts, 'job.yaml'), yaml);
  if (!yaml.includes('transformation:')) throw new Error('job.yaml has no search.transformation');
  if (!/age:\n(.*\n)*? {4}weight: 1\n/.test(yaml)) throw new Error('job.yaml has no weight for age');
  if (!/sample-uniqueness:\n\s+threshold: 0\.01\n/.test(yaml)) throw new Error(`job.yaml has no sample-uniqueness:\n${yaml}`);
  fs.writeFileSync(path.join(cli, 'job.yaml'), yaml);
  const run = spawnSync(deid, ['anonymize', path.join(cli, 'job.yaml')], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`deid anonymize job.yaml: exit ${run.status}: ${run.stderr}`);
  const browserCsv = fs.readFileSync(path.join(downloads, 'anonymized.csv'));
  const cliCsv = fs.readFileSync(path.join(cli, 'adult-deid.csv'));
  fs.copyFileSync(path.join(downloads, 'anonymized.csv'), path.join(artifacts, 'adult-deid.csv'));
  if (!browserCsv.equals(cliCsv))
    throw new Error(`the downloaded table (${browserCsv.length} bytes) differs from deid anonymize's (${cliCsv.length} bytes)`);
  const result = JSON.parse(fs.readFileSync(path.join(cli, 'adult-deid.json'), 'utf8'));
  const released = Object.entries(result.transformation).map(([a, l]) => `${a}=${l}`).join(', ');
  if (released !== chosen) throw new Error(`the CLI released ${released}, the app ${chosen}`);
  // The risk job's file, run by deid risk as its first lines say: the same JSON.
  const riskYaml = fs.readFileSync(path.join(downloads, 'risk-job.yaml'), 'utf8');
  const riskCommand = riskYaml.match(/^# {3}deid (risk job\.yaml .*)$/m);
  if (!riskCommand) throw new Error(`the risk job.yaml names no command:\n${riskYaml}`);
  fs.writeFileSync(path.join(cli, 'job.yaml'), riskYaml);
  const risk = spawnSync(deid, ['-q', ...riskCommand[1].split(' ')], { cwd: cli, encoding: 'utf8' });
  if (risk.status !== 0) throw new Error(`deid ${riskCommand[1]}: exit ${risk.status}: ${risk.stderr}`);
  const browserRisk = fs.readFileSync(path.join(downloads, 'risk.json'));
  if (!browserRisk.equals(fs.readFileSync(path.join(cli, 'adult-risk.json'))))
    throw new Error('the downloaded risk JSON differs from deid risk\'s');
  // The suppress job's file, run by deid suppress: the same table.
  fs.writeFileSync(path.join(cli, 'job.yaml'), fs.readFileSync(path.join(downloads, 'suppress-job.yaml')));
  fs.rmSync(path.join(cli, 'adult-deid.csv'));
  const suppress = spawnSync(deid, ['-q', 'suppress', 'job.yaml'], { cwd: cli, encoding: 'utf8' });
  if (suppress.status !== 0) throw new Error(`deid suppress job.yaml: exit ${suppress.status}: ${suppress.stderr}`);
  if (!fs.readFileSync(path.join(downloads, 'suppressed.csv')).equals(fs.readFileSync(path.join(cli, 'adult-deid.csv'))))
    throw new Error('the downloaded suppressed table differs from deid suppress\'s');
  console.log(`web_session: passed: ${browserCsv.length} bytes, identical to deid anonymize's (${released}); ` +
              `screenshots in ${artifacts}`);
} catch (e) {
  fail(e.stack || e.message);
  if (page) {
    // What the page showed when it failed.
    const shown = await page.$eval('#error', (b) => b.textContent).catch(() => '');
    if (shown) console.error(`web_session: the page's error: ${shown}`);
    await page.screenshot({ path: path.join(artifacts, 'failure.png') }).catch(() => {});
  }
} finally {
  if (browser) await browser.close().catch(() => {});
  cleanup();
}
