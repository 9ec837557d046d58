import { escapeHtml as e } from '@dzpay/platform';

/** One bar: its label under the axis, its value, and the value as people read it. */
interface ChartBar {
  label: string;
  value: number;
  valueText: string;
}

export interface BarChart {
  /** The chart's <title> and, with the summary, its accessible name. */
  title: string;
  /** What the chart says in one sentence (range, highest day), read out by screen readers. */
  summary: string;
  bars: readonly ChartBar[];
  /** Arabic reads right to left: the first bar is drawn on the right. */
  rtl?: boolean;
  /** The amount scale: a value as the axis writes it (the highest bar's and its half). */
  axisText?: (value: number) => string;
  width?: number;
  height?: number;
}

// The sides leave room for half a day label centred under the first and last bars.
const MARGIN = { top: 16, bottom: 28, side: 26 };
/**
 * At most this many labels under the axis; the others are skipped (each bar keeps its
 * title). Five keep "21 nov." apart on a phone's 390 px.
 */
const MAX_LABELS = 5;

/**
 * A bar chart as an SVG drawn on the server: no script, no style sheet (presentation
 * attributes only, which the dashboard's Content-Security-Policy allows). Negative
 * values are drawn at zero height: the chart shows collected amounts, which never are.
 * The SVG is one image for assistive technology (role="img", its <title> and
 * aria-label); the table beside it carries the figures.
 */
export function barChartSvg(chart: BarChart): string {
  // Small user units: the SVG scales to its box, and on a phone its text stays legible.
  const width = chart.width ?? 360;
  const height = chart.height ?? 180;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const plotWidth = width - 2 * MARGIN.side;
  const count = chart.bars.length;
  const max = Math.max(0, ...chart.bars.map((bar) => bar.value));
  const slot = count > 0 ? plotWidth / count : plotWidth;
  const barWidth = Math.max(1, slot * 0.7);
  const every = Math.max(1, Math.ceil(count / MAX_LABELS));
  const baseline = MARGIN.top + plotHeight;
  const round = (n: number) => Math.round(n * 100) / 100;

  const bars = chart.bars
    .map((bar, index) => {
      const position = chart.rtl ? count - 1 - index : index;
      const x = MARGIN.side + position * slot + (slot - barWidth) / 2;
      const barHeight = max > 0 ? (Math.max(0, bar.value) / max) * plotHeight : 0;
      const label =
        index % every === 0
          ? `<text x="${round(x + barWidth / 2)}" y="${height - 8}" text-anchor="middle" font-size="11" fill="#4a5565">${e(bar.label)}</text>`
          : '';
      return `<g><title>${e(`${bar.label}: ${bar.valueText}`)}</title><rect x="${round(x)}" y="${round(baseline - barHeight)}" width="${round(barWidth)}" height="${round(barHeight)}" fill="#0b6b3a"/>${label}</g>`;
    })
    .join('');
  // The scale: lines at the highest bar and at its half, each with its amount, written on
  // the side the chart starts from.
  const scale =
    chart.axisText && max > 0
      ? [max, max / 2]
          .map((value) => {
            const y = round(baseline - (value / max) * plotHeight);
            // Anchored at its start in its own direction: from the right edge leftwards in
            // Arabic, from the left edge rightwards otherwise, so it never leaves the box.
            const x = chart.rtl ? width - MARGIN.side : MARGIN.side;
            const direction = chart.rtl ? 'rtl' : 'ltr';
            return `<line x1="${MARGIN.side}" y1="${y}" x2="${width - MARGIN.side}" y2="${y}" stroke="#d5dbe3" stroke-width="1" stroke-dasharray="3 3"/><text x="${x}" y="${round(y - 3)}" direction="${direction}" text-anchor="start" font-size="10" fill="#4a5565">${e(chart.axisText!(value))}</text>`;
          })
          .join('')
      : '';
  const name = `${chart.title}. ${chart.summary}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${e(name)}" viewBox="0 0 ${width} ${height}" width="100%" preserveAspectRatio="xMidYMid meet">
<title>${e(chart.title)}</title><desc>${e(chart.summary)}</desc>
<line x1="${MARGIN.side}" y1="${baseline}" x2="${width - MARGIN.side}" y2="${baseline}" stroke="#8a94a3" stroke-width="1"/>
${scale}${bars}
</svg>`;
}
