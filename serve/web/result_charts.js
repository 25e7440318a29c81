// The charts of step 6: the released classes by size (counted from the
// released table) and the risk-utility frontier of the solutions found.

import { $, API, el, levels, number, sameTransformation, state } from './common.js';

// The records of a CSV text as arrays of fields (RFC 4180 quoting).
export function parseCsv(text, delimiter) {
  const records = [];
  let record = [], field = '', quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; ++i; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) { record.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') ++i;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length) { record.push(field); records.push(record); }
  return records;
}

// Counts the released classes (records equal in every quasi-identifier) of
// the released table and shows them by size.
export async function classSizes(id, r) {
  const response = await fetch(`${API}/jobs/${id}/output`, { credentials: 'same-origin' });
  if (!response.ok) return;
  const rows = parseCsv(await response.text(), state.dataset.delimiter);
  const header = rows.shift() || [];
  const qi = r.quasi_identifiers.map((q) => header.indexOf(q)).filter((i) => i >= 0);
  const classes = new Map();
  for (const row of rows) {
    const values = qi.map((i) => row[i]);
    if (values.every((v) => v === '*') && r.suppressed_records > 0) continue;  // suppressed
    const key = values.join('\u0000');
    classes.set(key, (classes.get(key) || 0) + 1);
  }
  const bounds = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, Infinity];
  const bins = bounds.slice(0, -1).map((lo, i) => ({ lo, hi: bounds[i + 1] - 1, classes: 0, records: 0 }));
  for (const size of classes.values()) {
    const bin = bins.find((b) => size >= b.lo && size <= b.hi);
    bin.classes += 1;
    bin.records += size;
  }
  const used = bins.filter((b) => b.classes > 0);
  const most = Math.max(1, ...used.map((b) => b.records));
  $('#sizes-table tbody').replaceChildren(...used.map((b) =>
    el('tr', {},
      el('th', { scope: 'row', text: b.hi === Infinity ? `${number(b.lo)} or more` : b.lo === b.hi ? number(b.lo) : `${number(b.lo)}–${number(b.hi)}` }),
      el('td', { class: 'num', text: number(b.classes) }),
      el('td', {}, el('meter', { min: 0, max: most, value: b.records, 'aria-label': 'records' }), ` ${number(b.records)}`))));
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attributes) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  return e;
}

// Average risk (y) against information loss (x), one point per solution.
export function plotFrontier(frontier, chosen) {
  const plot = $('#frontier-plot');
  plot.replaceChildren();
  const W = 420, H = 220, L = 48, B = 30, T = 10, R = 10;
  if (!frontier.length) {
    $('#frontier-caption').textContent = 'No frontier: no solution was found.';
    return;
  }
  const xs = frontier.map((p) => p.information_loss), ys = frontier.map((p) => p.average_risk);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = 0, y1 = Math.max(...ys) || 1;
  const sx = (x) => L + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * (W - L - R);
  const sy = (y) => H - B - ((y - y0) / (y1 - y0)) * (H - B - T);
  plot.append(svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
  plot.append(svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }));
  const label = (x, y, text, anchor = 'middle') => {
    const t = svg('text', { class: 'label', x, y, 'text-anchor': anchor });
    t.textContent = text;
    plot.append(t);
  };
  label((L + W - R) / 2, H - 4, 'information loss');
  label(L - 4, T + 8, number(y1, 3), 'end');
  label(L - 4, H - B, '0', 'end');
  label(L, H - B + 13, number(x0, 3), 'start');
  label(W - R, H - B + 13, number(x1, 3), 'end');
  const t = svg('text', { class: 'label', x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, 'text-anchor': 'middle' });
  t.textContent = 'average risk';
  plot.append(t);
  plot.append(svg('polyline', { class: 'line', points: frontier.map((p) => `${sx(p.information_loss)},${sy(p.average_risk)}`).join(' ') }));
  for (const p of frontier) {
    const c = svg('circle', { class: sameTransformation(p.transformation, chosen) ? 'point chosen' : 'point',
      cx: sx(p.information_loss), cy: sy(p.average_risk), r: 4 });
    const title = svg('title', {});
    title.textContent = `${levels(p.transformation)}: loss ${number(p.information_loss)}, average risk ${number(p.average_risk)}`;
    c.append(title);
    plot.append(c);
  }
  $('#frontier-caption').textContent =
    `${frontier.length} solutions from loss ${number(x0)} (average risk ${number(ys[0])}) to loss ${number(x1)} ` +
    `(average risk ${number(ys[ys.length - 1])}); the chosen one in red.`;
}
