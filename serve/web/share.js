// The Sharing view: deid share's recipients, sessions and audit log, when
// the server was started with --share (GET /version says so; otherwise the
// view stays hidden). Read-only but for revoking a recipient's tokens,
// which ends their running session (the proxy re-reads the store).

import { $, api, el, guard, number } from './common.js';

const PAGE = 50;
const audit = { offset: 0, total: 0 };

const text = (x) => (x === null || x === undefined || x === '' ? '–' : String(x));
// "2026-11-29T05:10:28.244124Z" -> "2026-11-29 05:10:28"
const when = (t) => (t ? t.replace('T', ' ').replace(/(\.\d+)?Z$/, '') : '–');

export function initShare() {
  api('/version').then((version) => {
    if (!version.share) return;
    $('.share-nav').hidden = false;
    $('.step[data-step="share"]').addEventListener('click', () => guard(refresh));
    $('#share-refresh').addEventListener('click', () => guard(refresh));
    $('#audit-apply').addEventListener('click', () => guard(() => loadAudit(0)));
    $('#audit-newer').addEventListener('click', () => guard(() => loadAudit(Math.max(0, audit.offset - PAGE))));
    $('#audit-older').addEventListener('click', () => guard(() => loadAudit(audit.offset + PAGE)));
    document.body.dataset.share = 'true';
  }, () => {});
}

export async function refresh() {
  const summary = await api('/share');
  $('#share-status').textContent =
    `Token store ${summary.tokens}, audit log ${summary.audit}: ${number(summary.audit_lines)} lines` +
    (summary.unreadable_lines ? `, ${number(summary.unreadable_lines)} unreadable` : '') +
    `; ${number(summary.sessions_running)} session(s) running.`;
  await Promise.all([loadRecipients(), loadSessions(), loadAudit(audit.offset)]);
  document.body.dataset.shareLoaded = String(Date.now());
}

async function loadRecipients() {
  const { recipients } = await api('/share/recipients');
  $('#share-recipients tbody').replaceChildren(...recipients.map((r) => el('tr', { 'data-recipient': r.name },
    el('th', { scope: 'row', text: r.name }),
    el('td', { text: r.running ? `${r.state}, in a session` : r.state }),
    el('td', {}, el('ul', { class: 'findings' }, ...r.tokens.map((t) =>
      el('li', { text: `${t.state}: ${when(t.created)}, expires ${t.expires ? when(t.expires) : 'never'}` +
        (t.revoked ? `, revoked ${when(t.revoked)}` : '') })))),
    el('td', { class: 'num', text: number(r.sessions) }),
    el('td', { text: when(r.last_session) }),
    el('td', {}, r.state === 'valid'
      ? el('button', { type: 'button', class: 'small', 'data-revoke': r.name, text: 'Revoke',
        onclick: () => guard(() => revoke(r.name)) })
      : null))));
}

async function revoke(name) {
  if (!window.confirm(`Revoke every token of ${name}? A running session of theirs ends within a second.`)) return;
  const answer = await api('/share/revoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: name }),
  });
  await refresh();
  $('#share-status').textContent = `Revoked ${answer.revoked} token(s) of ${answer.recipient}. ` +
    $('#share-status').textContent;
}

function events(s) {
  const e = s.events;
  const parts = [];
  for (const [key, label] of [['key', 'keys'], ['pointer', 'pointer'], ['client-cut-text', 'clipboard in'],
    ['server-cut-text', 'clipboard out']])
    if (e[key]) parts.push(`${number(e[key])} ${label}`);
  const dropped = (s.counts['keys-dropped'] || 0) + (s.counts['buttons-dropped'] || 0);
  if (dropped) parts.push(`${number(dropped)} rate-limited`);
  return parts.join(', ') || '–';
}

async function loadSessions() {
  const page = await api(`/share/sessions?limit=${PAGE}`);
  $('#share-sessions tbody').replaceChildren(...page.sessions.map((s) => el('tr', { class: s.state, 'data-session': s.id },
    el('th', { scope: 'row', text: s.id }),
    el('td', { text: text(s.recipient) }),
    el('td', { text: s.state }),
    el('td', { text: when(s.start || s.connected) }),
    el('td', { text: when(s.end) }),
    el('td', { text: text(s.reason) }),
    el('td', { text: events(s) }),
    el('td', { text: text(s.recording) }),
    el('td', {}, el('button', { type: 'button', class: 'small', text: 'Audit lines', onclick: () => guard(() => {
      $('#audit-session').value = s.id;
      $('#audit-recipient').value = '';
      $('#audit-event').value = '';
      return loadAudit(0);
    }) })))));
  $('#share-sessions-more').textContent = page.total > page.sessions.length
    ? `The newest ${page.sessions.length} of ${number(page.total)} sessions.` : '';
}

function details(line) {
  const skip = new Set(['line', 'time', 'session', 'recipient', 'event']);
  return Object.entries(line).filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`).join(' ');
}

async function loadAudit(offset) {
  const query = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
  for (const [key, id] of [['recipient', '#audit-recipient'], ['session', '#audit-session'], ['event', '#audit-event']]) {
    const value = $(id).value.trim();
    if (value) query.set(key, value);
  }
  const page = await api(`/share/audit?${query}`);
  audit.offset = page.offset;
  audit.total = page.total;
  $('#share-audit tbody').replaceChildren(...page.lines.map((l) => el('tr', { 'data-event': l.event },
    el('td', { class: 'num', text: String(l.line) }),
    el('td', { text: when(l.time) }),
    el('td', { text: text(l.session) }),
    el('td', { text: text(l.recipient) }),
    el('td', { text: l.verdict ? `${l.event} (${l.verdict})` : l.event }),
    el('td', { text: l.event === 'unreadable' ? l.text : details(l) }))));
  $('#audit-page').textContent = page.total
    ? `Lines ${number(page.offset + 1)} to ${number(page.offset + page.lines.length)} of ${number(page.total)}, newest first.`
    : 'No line matches.';
  $('#audit-newer').disabled = page.offset === 0;
  $('#audit-older').disabled = page.offset + page.lines.length >= page.total;
}

