// The browser test of deid serve's web app (docs/web.md): Debian's Chromium,
// headless, driven by puppeteer-core through a whole session on adult:
// upload a small table, then open adult from the data directory, give
// roles, build the age hierarchy inline (intervals, previewed) and take the
// others from files, cancel a job queued behind a long one, run
// 5-anonymity, release another of the best solutions, download the released
// table and the job as YAML, and compare the table byte for byte with what
// `deid anonymize` writes for that job.yaml. A screenshot of each step goes
// to ARTIFACTS/step-N.png.
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
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  // Any error response fails the test, but for the cancel of the long job
  // below (409 when it ended already).
  page.on('response', (r) => {
    if (r.status() >= 400 && r.request().method() !== 'DELETE') problems.push(`${r.status()} for ${r.url()}`);
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
  // ... and so does a file of the data directory, the one the session goes on with.
  await page.select('#file-select', 'adult.csv');
  await page.click('#load-file');
  await page.waitForFunction(() => document.querySelector('#summary-rows').textContent.startsWith('adult.csv: 30,162 records'));
  const types = await page.$$eval('#columns-table tbody tr', (rows) => rows.map((r) => r.children[1].textContent));
  if (types[1] !== 'integer' || types[0] !== 'string') throw new Error(`detected types: ${types}`);
  await shot(page, 'adult.csv opened: columns, types, distinct values, sample');

  // 2. Roles: five quasi-identifiers; age with an intervals builder, the others from files.
  await page.click('button[data-next="attributes"]');
  for (const column of ['sex', 'age', 'race', 'marital-status', 'education'])
    await page.select(`select[data-role-for="${column}"]`, 'quasi-identifying');
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
  if (!described[0].includes('hierarchies/sex.csv') || !described[1].startsWith('intervals'))
    throw new Error(`hierarchies: ${described}`);

  // 3. 5-anonymity, 5 % suppression, loss, exhaustive search (the whole frontier).
  await page.click('button[data-next="privacy"]');
  await setValue('#m-k-k', '5');
  await setValue('#o-suppression', '0.05');
  await page.select('#o-algorithm', 'exhaustive');
  await shot(page, 'privacy models, quality model and search');

  // 4. Cancel: a job queued behind a long one (9 quasi-identifiers,
  // exhaustive; the server has one worker) is cancelled at once.
  const blocker = await page.evaluate(async (dataset) => {
    const attributes = {};
    for (const a of ['age', 'education', 'marital-status', 'native-country', 'race', 'salary-class', 'sex',
                     'workclass', 'occupation'])
      attributes[a] = { role: 'quasi-identifying', hierarchy: `hierarchies/${a}.csv` };
    const response = await fetch('/api/v1/jobs', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ dataset, attributes, privacy: [{ 'k-anonymity': { k: 5 } }], 'suppression-limit': 0.05,
                             search: { algorithm: 'exhaustive' } }),
    });
    return (await response.json()).id;
  }, await page.$eval('body', (b) => b.dataset.dataset));
  await page.click('#run');
  await page.waitForFunction(() => /^(queued|running|done)/.test(document.querySelector('#run-status').textContent));
  await page.click('#cancel');
  await page.waitForFunction(() => /^(cancelled|done)/.test(document.querySelector('#run-status').textContent));
  const ended = await page.$eval('#run-status', (p) => p.textContent);
  if (ended.startsWith('done')) console.log('web_session: the cancel was not checked: the long job ended first');
  else console.log('web_session: the queued job was cancelled');
  await page.evaluate((id) => fetch(`/api/v1/jobs/${id}`, { method: 'DELETE' }), blocker);

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
  await page.click('#dl-output');
  await waitForFile(path.join(downloads, 'adult-deid.csv'));
  await page.click('#dl-job');
  await waitForFile(path.join(downloads, 'job.yaml'));

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
  const yaml = fs.readFileSync(path.join(downloads, 'job.yaml'), 'utf8');
  fs.writeFileSync(path.join(artifacts, 'job.yaml'), yaml);
  if (!yaml.includes('transformation:')) throw new Error('job.yaml has no search.transformation');
  fs.writeFileSync(path.join(cli, 'job.yaml'), yaml);
  const run = spawnSync(deid, ['anonymize', path.join(cli, 'job.yaml')], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`deid anonymize job.yaml: exit ${run.status}: ${run.stderr}`);
  const browserCsv = fs.readFileSync(path.join(downloads, 'adult-deid.csv'));
  const cliCsv = fs.readFileSync(path.join(cli, 'adult-deid.csv'));
  fs.copyFileSync(path.join(downloads, 'adult-deid.csv'), path.join(artifacts, 'adult-deid.csv'));
  if (!browserCsv.equals(cliCsv))
    throw new Error(`the downloaded table (${browserCsv.length} bytes) differs from deid anonymize's (${cliCsv.length} bytes)`);
  const result = JSON.parse(fs.readFileSync(path.join(cli, 'adult-deid.json'), 'utf8'));
  const released = Object.entries(result.transformation).map(([a, l]) => `${a}=${l}`).join(', ');
  if (released !== chosen) throw new Error(`the CLI released ${released}, the app ${chosen}`);
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
