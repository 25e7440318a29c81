// deid share from a browser (docs/share.md, "Access from a browser"):
// `deid share run` with a `web` section starts the desktop (Xvfb, x11vnc,
// Chromium in kiosk mode showing a page this test serves), the proxy and
// websockify serving noVNC; a headless Chromium driven by puppeteer-core
// opens noVNC's page and connects through websockify and the proxy.
//
//   node tests/share/novnc_test.mjs --deid build/deid
//
// It asserts: a wrong token and a revoked one are refused (noVNC shows the
// failure, the audit log the refusal); the right one shows the kiosk's page
// on noVNC's canvas (its colour, pixel by pixel); a click and typing in
// noVNC reach the kiosk's page and are in the audit log under the
// recipient; text pushed through noVNC's clipboard panel is dropped (the
// audit log has its length) and never reaches the X server's selections
// (xclip); `deid serve --share` shows the recipients (no token), the
// session and its audit lines, in the REST API and in the web app's
// Sharing view, and revoking there ends the running session; killing
// websockify ends the next session with that reason and `deid share run`
// with exit code 3, nothing left running. Everything started here is
// stopped at the end, also on failure. Exit code 0 when all hold.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const deid = path.resolve(args.deid || 'build/deid');
const chromium = process.env.DEID_CHROMIUM || '/usr/bin/chromium';
const KIOSK = [0, 153, 102];  // the kiosk page's background, looked for on noVNC's canvas
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? 'ok:  ' : 'FAIL:'} ${what}`);
  if (!ok) failures.push(what);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function eventually(test, seconds = 10) {
  for (const until = Date.now() + seconds * 1000; Date.now() < until; await sleep(100)) if (await test()) return true;
  return Boolean(await test());
}

let puppeteer;
try {
  const require = createRequire(path.join(here, '../web/package.json'));
  puppeteer = (await import(require.resolve('puppeteer-core'))).default;
} catch (e) {
  console.error(`novnc_test: puppeteer-core is not installed in tests/web/node_modules (${e.message.split('\n')[0]}); ` +
                'run scripts/install-deps.sh --test');
  process.exit(1);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'deid-novnc-test-'));
const started = [];  // child processes, each a process group of its own
function start(name, command, argv) {
  const child = spawn(command, argv, { cwd: work, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  child.stdout.on('data', (d) => { child.output += d; });
  child.stderr.on('data', (d) => fs.appendFileSync(path.join(work, `${name}.err`), d));
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  started.push(child);
  return child;
}
function killAll() {
  for (const child of started.reverse()) {
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(1));

const run = (...argv) => spawnSync(deid, argv, { cwd: work, encoding: 'utf8' });
const auditLines = () => (fs.existsSync(path.join(work, 'audit.jsonl'))
  ? fs.readFileSync(path.join(work, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

// The kiosk's page: one colour over the screen, a text field that reports
// what reaches it (typed keys, clicks) back to this test.
const typed = [];
let clicks = 0;
const kiosk = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/typed') typed.push(url.searchParams.get('v'));
  if (url.pathname === '/click') ++clicks;
  res.setHeader('Content-Type', 'text/html');
  res.end(`<!DOCTYPE html><html><body style="margin:0;background:rgb(${KIOSK})">
<input id="t" autofocus style="position:absolute;left:10px;top:10px;width:300px;font-size:30px">
<script>
  const t = document.getElementById('t');
  t.addEventListener('input', () => fetch('/typed?v=' + encodeURIComponent(t.value)));
  document.body.addEventListener('mousedown', () => fetch('/click'));
</script></body></html>`);
});
await new Promise((r) => kiosk.listen(0, '127.0.0.1', r));
const kioskUrl = `http://127.0.0.1:${kiosk.address().port}/`;


let browser = null;
try {
  const alice = run('share', 'token', 'add', '--tokens', 'tokens.json', '--recipient', 'alice').stdout.trim();
  const bob = run('share', 'token', 'add', '--tokens', 'tokens.json', '--recipient', 'bob').stdout.trim();
  run('share', 'token', 'revoke', '--tokens', 'tokens.json', '--recipient', 'bob');
  fs.writeFileSync(path.join(work, 'share.yaml'),
    `desktop: {size: 800x600, url: "${kioskUrl}"}\nweb: {listen: "127.0.0.1:0", log: websockify.log}\n` +
    'tokens: tokens.json\naudit: audit.jsonl\n');
  const share = start('share', deid, ['share', 'run', 'share.yaml', '--listen', '127.0.0.1:0']);
  check(await eventually(() => /noVNC on (\S+)/.test(share.output), 20), 'deid share run starts websockify with noVNC');
  const novnc = share.output.match(/noVNC on (\S+) \(websockify, pid (\d+)\)/);
  const display = share.output.match(/desktop (:\d+)/)[1];
  const websockify = Number(novnc[2]);

  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 750 });
  page.on('dialog', (d) => d.accept());

  // Opens noVNC (it connects at once and asks for the password) and logs in.
  const status = () => page.$eval('#noVNC_status', (e) => `${e.className} ${e.textContent}`).catch(() => '');
  async function connect(token) {
    await page.bringToFront();
    await page.goto(novnc[1], { waitUntil: 'load' });
    await page.waitForSelector('#noVNC_password_input', { visible: true, timeout: 15000 });
    await page.type('#noVNC_password_input', token);
    await page.click('#noVNC_credentials_button');
  }
  // noVNC's page says so on its root element (noVNC_connected); its status
  // line keeps an earlier warning.
  const connected = () => page.$eval('html', (e) => e.classList.contains('noVNC_connected')).catch(() => false);
  const refusals = () => auditLines().filter((l) => l.event === 'refused').map((l) => l.reason);

  await connect('wrongtok');
  check(await eventually(() => refusals().includes('unknown token'), 10), 'a wrong token is refused (audit log)');
  check(await eventually(async () => /error/.test(await status()), 5), `noVNC shows the refusal: ${await status()}`);
  await connect(bob);
  check(await eventually(() => refusals().includes('token revoked'), 10), 'a revoked token is refused (audit log)');

  // The kiosk has painted its page on the X screen (ffmpeg grabs a point
  // of it) before alice connects: x11vnc's first frame is then the page.
  const screenPixel = () => [...(spawnSync('ffmpeg', ['-loglevel', 'error', '-f', 'x11grab', '-draw_mouse', '0',
    '-video_size', '1x1', '-i', `${display}+600,450`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
  { timeout: 10000 }).stdout || [])];
  check(await eventually(() => KIOSK.every((v, i) => Math.abs(v - (screenPixel()[i] ?? -99)) <= 2), 30),
        `the kiosk shows its page on the X screen: ${screenPixel()}`);
  await connect(alice);
  check(await eventually(connected, 15), 'alice connects (noVNC_connected)');
  // The kiosk's colour on noVNC's canvas (the page loads in the kiosk meanwhile).
  // Points of the page away from its text field and from the pointer (at
  // the centre: x11vnc draws it into the screen), in the desktop's pixels.
  const pixels = () => page.evaluate(() => {
    const canvas = document.querySelector('#noVNC_container canvas');
    const at = [[600, 450], [200, 500], [700, 100], [100, 300], [400, 550]];
    return at.map(([x, y]) => [...canvas.getContext('2d').getImageData(x, y, 1, 1).data]);
  });
  // Opaque too: noVNC 1.3 draws a Raw pixel whose free byte is 0 transparent (the proxy sets it).
  const isKiosk = (ps) => ps.every((p) => KIOSK.every((v, i) => Math.abs(v - p[i]) <= 2) && p[3] === 255);
  check(await eventually(async () => isKiosk(await pixels()), 25),
        `noVNC's canvas shows the kiosk's page: ${JSON.stringify(await pixels())}`);
  await page.screenshot({ path: path.join(work, 'novnc.png') });

  // Input from noVNC: a click on the kiosk's field, then typing.
  const box = await (await page.$('#noVNC_container canvas')).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.click(box.x + 40 * box.width / 800, box.y + 30 * box.height / 600);
  await page.keyboard.type('deid', { delay: 60 });
  check(await eventually(() => typed.includes('deid'), 10), `typing in noVNC reaches the kiosk's page: ${typed.at(-1)}`);
  check(clicks >= 1, 'a click in noVNC reaches the kiosk\'s page');
  const mine = () => auditLines().filter((l) => l.recipient === 'alice');
  const keys = mine().filter((l) => l.event === 'key' && l.verdict === 'forwarded' && l.down);
  check(keys.map((l) => l.keysym).join(' ') === '0x0064 0x0065 0x0069 0x0064',
        `the audit log has alice's keys: ${keys.map((l) => l.keysym).join(' ')}`);
  check(mine().some((l) => l.event === 'pointer' && l.buttons === 1), 'the audit log has alice\'s clicks');

  // noVNC's clipboard panel: its text goes out as ClientCutText, which the
  // proxy drops; the X server's selections never get it.
  const secret = `clip-${Math.random().toString(36).slice(2)}`;
  await page.click('#noVNC_control_bar_handle').catch(() => {});
  await page.evaluate((text) => {
    const area = document.getElementById('noVNC_clipboard_text');
    area.value = text;
    area.dispatchEvent(new Event('change'));
  }, secret);
  check(await eventually(() => mine().some((l) => l.event === 'client-cut-text' && l.length === secret.length), 5),
        'noVNC\'s clipboard text is dropped by the proxy (audit log: its length)');
  const selections = ['primary', 'secondary', 'clipboard'].map((s) =>
    spawnSync('xclip', ['-o', '-selection', s], { env: { ...process.env, DISPLAY: display }, encoding: 'utf8', timeout: 5000 }).stdout || '');
  check(selections.every((s) => !s.includes(secret)), 'the clipboard text never reaches the X server\'s selections');
  check(!JSON.stringify(auditLines()).includes(secret), 'the audit log holds the clipboard\'s length, not its text');

  // The custodian's view: deid serve --share, its REST API and web app.
  const token = `t${Math.random().toString(16).slice(2)}`;
  const serve = start('serve', deid, ['serve', '--port', '0', '--token', token, '--share', 'share.yaml', '--state-dir', work]);
  check(await eventually(() => /open (\S+)/.test(serve.output), 20), 'deid serve --share starts');
  const serveUrl = serve.output.match(/open (\S+)/)[1];
  const base = new URL(serveUrl).origin;
  const api = async (p, options = {}) => {
    const r = await fetch(base + '/api/v1' + p, { ...options, headers: { Authorization: `Bearer ${token}`, ...options.headers } });
    return { status: r.status, body: await r.json() };
  };
  const recipients = (await api('/share/recipients')).body.recipients;
  check(JSON.stringify(recipients.map((r) => [r.name, r.state, r.running])) === '[["alice","valid",true],["bob","revoked",false]]',
        `the recipients: ${JSON.stringify(recipients.map((r) => [r.name, r.state, r.running]))}`);
  check(![alice, bob].some((t) => JSON.stringify(recipients).includes(t)), 'no token is shown');
  const view = await browser.newPage();
  view.on('dialog', (d) => d.accept());
  await view.goto(serveUrl, { waitUntil: 'load' });
  await view.waitForSelector('.share-nav:not([hidden]) .step', { timeout: 10000 });
  await view.click('.step[data-step="share"]');
  await view.waitForSelector('body[data-share-loaded] #share-recipients tr[data-recipient="alice"] button[data-revoke]',
                             { timeout: 10000 });
  const sessionRow = await view.$eval('#share-sessions tr.running', (r) => r.textContent).catch(() => '');
  check(sessionRow.includes('alice'), `the web app shows alice's running session: ${sessionRow.slice(0, 120)}`);
  const auditRows = await view.$$eval('#share-audit tbody tr[data-event="key"]', (rows) => rows.length);
  check(auditRows >= 8, `the web app shows the audit log's key lines: ${auditRows}`);
  await view.screenshot({ path: path.join(work, 'sharing.png'), fullPage: true });
  // Revoking in the web app ends the running session.
  await view.click('#share-recipients tr[data-recipient="alice"] button[data-revoke]');
  check(await eventually(() => mine().some((l) => l.event === 'session-end' && l.reason === 'token revoked'), 5),
        'revoking in the web app ends alice\'s session (audit log: token revoked)');
  check(await eventually(async () => /Disconnected|closed/.test(await status()), 5), `noVNC shows the end: ${await status()}`);
  const sessions = (await api('/share/sessions?recipient=alice')).body.sessions;
  check(sessions.length === 1 && sessions[0].state === 'ended' && sessions[0].reason === 'token revoked' &&
        sessions[0].events.key >= 8, `the session in the REST API: ${JSON.stringify(sessions[0]).slice(0, 200)}`);

  // websockify dies: the session ends with that reason, deid share run with 3.
  const carol = run('share', 'token', 'add', '--tokens', 'tokens.json', '--recipient', 'carol').stdout.trim();
  await connect(carol);
  check(await eventually(connected, 15), 'carol connects');
  process.kill(websockify, 'SIGKILL');
  const code = await Promise.race([share.exited, sleep(15000).then(() => 'still running')]);
  check(code === 3, `deid share run exits with 3 when websockify dies: ${code}`);
  const end = auditLines().filter((l) => l.recipient === 'carol' && l.event === 'session-end').map((l) => l.reason);
  check(end.length === 1 && end[0].startsWith('the web access failed: websockify exited'), `carol's session ends: ${end}`);
  const pids = [websockify, ...[...share.output.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]))];
  check(pids.length >= 4 && pids.every((pid) => !alive(pid)), `nothing of the share is left running: ${pids}`);
} catch (e) {
  check(false, `the test ran to its end: ${e.stack}`);
} finally {
  if (browser) await browser.close().catch(() => {});
  for (const child of started) if (child.exitCode === null) try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
  await Promise.race([Promise.all(started.map((c) => c.exited)), sleep(8000)]);
  killAll();
  kiosk.close();
  if (failures.length) {
    for (const f of fs.readdirSync(work).filter((f) => f.endsWith('.err') || f.endsWith('.log')))
      console.log(`--- ${f}\n${fs.readFileSync(path.join(work, f), 'utf8').slice(-2000)}`);
  }
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(failures.length ? `novnc_test: ${failures.length} FAILED` : 'novnc_test: all passed');
process.exit(failures.length ? 1 : 0);
