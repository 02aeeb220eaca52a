/**
 * Inline SVG charts for the experiment report (no script, no external file, so the report opens
 * offline): sorted per-query differences as bars, means with confidence intervals as dots and
 * whiskers, and lines (recall against depth, on a log axis). Pure string building.
 */

/** Series colours, distinguishable in print and for the common colour-vision deficiencies. */
export const PALETTE = [
  '#1f77b4',
  '#d95f02',
  '#1b9e77',
  '#7570b3',
  '#e7298a',
  '#66a61e',
  '#a6761d',
  '#666666',
];

/** Text for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const fmt = (value: number) => (Math.round(value * 10_000) / 10_000).toString();

/**
 * Bars of per-query differences, sorted from the largest gain to the largest loss, gains above
 * the zero line; each bar's tooltip names its query.
 */
export function differenceBars(
  items: readonly { label: string; value: number }[],
  options: { width?: number; height?: number; title: string },
): string {
  const width = options.width ?? 720;
  const height = options.height ?? 220;
  const sorted = [...items].sort((a, b) => b.value - a.value);
  const extent = Math.max(1e-9, ...sorted.map((item) => Math.abs(item.value)));
  const left = 60;
  const plot = width - left - 8;
  const zero = height / 2;
  const scale = (height / 2 - 14) / extent;
  const step = plot / Math.max(sorted.length, 1);
  const bars = sorted
    .map((item, i) => {
      const h = Math.abs(item.value) * scale;
      const y = item.value >= 0 ? zero - h : zero;
      const color = item.value > 0 ? '#1b9e77' : item.value < 0 ? '#d95f02' : '#999';
      return `<rect x="${fmt(left + i * step)}" y="${fmt(y)}" width="${fmt(Math.max(step - 1, 0.5))}" height="${fmt(Math.max(h, 0.5))}" fill="${color}"><title>${escapeXml(`${item.label}: ${item.value >= 0 ? '+' : ''}${item.value.toFixed(4)}`)}</title></rect>`;
    })
    .join('');
  const axis = [
    `<line x1="${left}" x2="${width - 8}" y1="${zero}" y2="${zero}" stroke="#333"/>`,
    `<text x="${left - 4}" y="${zero - extent * scale + 4}" text-anchor="end">+${fmt(extent)}</text>`,
    `<text x="${left - 4}" y="${zero + 4}" text-anchor="end">0</text>`,
    `<text x="${left - 4}" y="${zero + extent * scale + 4}" text-anchor="end">-${fmt(extent)}</text>`,
  ].join('');
  return svg(width, height, options.title, axis + bars);
}

/** One row per pipeline: its mean as a dot and its confidence interval as a whisker. */
export function intervalChart(
  rows: readonly { label: string; mean: number; low: number; high: number; color: string }[],
  options: { width?: number; title: string },
): string {
  const width = options.width ?? 520;
  const rowHeight = 24;
  const height = rows.length * rowHeight + 28;
  const left = 150;
  const plot = width - left - 24;
  const max = niceCeiling(Math.max(1e-9, ...rows.map((row) => row.high)));
  const x = (value: number) => left + (Math.max(0, value) / max) * plot;
  const body = rows
    .map((row, i) => {
      const y = 14 + i * rowHeight;
      return [
        `<text x="${left - 8}" y="${y + 4}" text-anchor="end">${escapeXml(clip(row.label, 24))}</text>`,
        `<line x1="${fmt(x(row.low))}" x2="${fmt(x(row.high))}" y1="${y}" y2="${y}" stroke="${row.color}" stroke-width="2"/>`,
        `<circle cx="${fmt(x(row.mean))}" cy="${y}" r="4" fill="${row.color}"><title>${escapeXml(`${row.label}: ${row.mean.toFixed(4)} [${row.low.toFixed(4)}, ${row.high.toFixed(4)}]`)}</title></circle>`,
      ].join('');
    })
    .join('');
  const axisY = height - 12;
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (f) =>
        `<text x="${fmt(left + f * plot)}" y="${axisY + 10}" text-anchor="middle">${fmt(f * max)}</text>`,
    )
    .join('');
  const axis = `<line x1="${left}" x2="${left + plot}" y1="${axisY}" y2="${axisY}" stroke="#333"/>${ticks}`;
  return svg(width, height + 4, options.title, body + axis);
}

/** Lines over a log-scaled x axis (depths), with a legend. */
export function logLines(
  series: readonly { label: string; color: string; points: readonly { x: number; y: number }[] }[],
  options: { width?: number; height?: number; title: string; xLabel: string; yLabel: string },
): string {
  const width = options.width ?? 720;
  const height = options.height ?? 300;
  const [left, right, top, bottom] = [52, 200, 12, 40];
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const [minX, maxX] = [Math.min(...xs, 1), Math.max(...xs, 10)];
  const px = (v: number) =>
    left +
    ((Math.log10(v) - Math.log10(minX)) / (Math.log10(maxX) - Math.log10(minX) || 1)) *
      (width - left - right);
  const py = (v: number) => top + (1 - v) * (height - top - bottom);
  const lines = series
    .map(
      (s) =>
        `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.points.map((p) => `${fmt(px(p.x))},${fmt(py(p.y))}`).join(' ')}"><title>${escapeXml(s.label)}</title></polyline>`,
    )
    .join('');
  const xTicks = [...new Set(xs)]
    .filter((v) => [1, 10, 100, 1000, 10000].includes(v) || v === maxX)
    .map(
      (v) => `<text x="${fmt(px(v))}" y="${height - bottom + 16}" text-anchor="middle">${v}</text>`,
    )
    .join('');
  const yTicks = [0, 0.25, 0.5, 0.75, 1]
    .map((v) => `<text x="${left - 6}" y="${fmt(py(v) + 4)}" text-anchor="end">${v}</text>`)
    .join('');
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${width - right + 12}" y="${top + i * 18}" width="12" height="4" fill="${s.color}"/><text x="${width - right + 30}" y="${top + i * 18 + 6}">${escapeXml(clip(s.label, 26))}</text>`,
    )
    .join('');
  const axes = [
    `<line x1="${left}" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" stroke="#333"/>`,
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${height - bottom}" stroke="#333"/>`,
    `<text x="${(left + width - right) / 2}" y="${height - 6}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text x="12" y="${(top + height - bottom) / 2}" transform="rotate(-90 12 ${(top + height - bottom) / 2})" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  ].join('');
  return svg(width, height, options.title, axes + xTicks + yTicks + lines + legend);
}

/** The smallest of 1, 2 or 5 times a power of ten, halves included, that is >= `value`. */
export function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= value * (1 - 1e-12)) ?? 10;
  return step * power;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function svg(width: number, height: number, title: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}" font-size="11" font-family="system-ui, sans-serif"><title>${escapeXml(title)}</title>${body}</svg>`;
}
