// Bar charts of the data explorer, drawn here as SVG (nothing fetched).
const SVG = 'http://www.w3.org/2000/svg';

function node(tag, attributes = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// A horizontal bar chart of [{label, count}], one bar a value, longest
// the largest count.
export function barChart(items, { width = 420, bar = 18, gap = 4, labelWidth = 130 } = {}) {
  const max = Math.max(1, ...items.map((i) => i.count));
  const height = items.length * (bar + gap) + gap;
  const svg = node('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' });
  const room = width - labelWidth - 60;
  items.forEach((item, k) => {
    const y = gap + k * (bar + gap);
    const label = item.label.length > 18 ? `${item.label.slice(0, 17)}…` : item.label;
    svg.append(node('text', { x: labelWidth - 6, y: y + bar - 5, 'text-anchor': 'end' }, label || '(missing)'));
    const w = Math.max(1, Math.round((room * item.count) / max));
    svg.append(node('rect', { x: labelWidth, y, width: w, height: bar, class: 'bar-rect' }));
    svg.append(node('text', { x: labelWidth + w + 4, y: y + bar - 5 }, String(item.count)));
  });
  return svg;
}
