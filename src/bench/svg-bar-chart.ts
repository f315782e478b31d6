// A grouped horizontal bar chart as a standalone SVG string (no scripts, no fonts to fetch), so it can
// be committed next to the markdown table and shown by GitHub or any browser. Each bar is a median;
// an optional whisker marks the p90.

export interface ChartBar {
  series: string;
  /** Median (or the single value); null draws "n/a" with the note. */
  value: number | null;
  /** Drawn as a whisker from the bar's end, e.g. the p90. */
  whisker?: number | null;
  note?: string;
}

export interface ChartGroup {
  label: string;
  bars: ChartBar[];
}

export interface BarChartInput {
  title: string;
  /** Unit shown on the axis and after values, e.g. "ms" or "tokens/s". */
  unit: string;
  groups: ChartGroup[];
  /** Subtitle, e.g. machine and date. */
  subtitle?: string;
}

const palette = [
  "#3559c7",
  "#e67e22",
  "#27ae60",
  "#c0392b",
  "#8e44ad",
  "#16a085",
  "#7f8c8d",
  "#d35400",
  "#2c3e50",
  "#f1c40f",
  "#e84393",
  "#00a8ff",
];

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function niceMaximum(value: number): number {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10])
    if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function formatValue(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function svgBarChart(input: BarChartInput): string {
  const series = [...new Set(input.groups.flatMap((group) => group.bars.map((bar) => bar.series)))];
  const colourOf = (name: string) => palette[series.indexOf(name) % palette.length]!;
  const width = 860;
  const labelWidth = 150;
  const valueWidth = 150;
  const barHeight = 16;
  const barGap = 4;
  const groupGap = 16;
  const top = input.subtitle ? 64 : 46;
  const plotWidth = width - labelWidth - valueWidth - 20;
  const maximum = niceMaximum(
    Math.max(
      0,
      ...input.groups.flatMap((group) => group.bars.flatMap((bar) => [bar.value ?? 0, bar.whisker ?? 0])),
    ),
  );
  const scale = (value: number) => (Math.max(0, value) / maximum) * plotWidth;
  const parts: string[] = [];
  let y = top;
  for (const group of input.groups) {
    const groupHeight = group.bars.length * (barHeight + barGap) - barGap;
    parts.push(
      `<text x="${labelWidth - 10}" y="${y + groupHeight / 2 + 4}" text-anchor="end" font-size="12" fill="#1d2330">${escapeXml(group.label)}</text>`,
    );
    for (const bar of group.bars) {
      const x = labelWidth;
      if (bar.value === null) {
        parts.push(
          `<text x="${x + 4}" y="${y + barHeight - 4}" font-size="11" fill="#7f8c8d">${escapeXml(`${bar.series}: n/a${bar.note ? ` (${bar.note})` : ""}`)}</text>`,
        );
      } else {
        const length = Math.max(1, scale(bar.value));
        parts.push(
          `<rect x="${x}" y="${y}" width="${length.toFixed(1)}" height="${barHeight}" rx="2" fill="${colourOf(bar.series)}"><title>${escapeXml(`${bar.series}: ${formatValue(bar.value)} ${input.unit}`)}</title></rect>`,
        );
        let end = x + length;
        if (bar.whisker !== undefined && bar.whisker !== null && bar.whisker > bar.value) {
          const whiskerEnd = x + scale(bar.whisker);
          const middle = y + barHeight / 2;
          parts.push(
            `<line x1="${end.toFixed(1)}" x2="${whiskerEnd.toFixed(1)}" y1="${middle}" y2="${middle}" stroke="#1d2330" stroke-width="1"/>` +
              `<line x1="${whiskerEnd.toFixed(1)}" x2="${whiskerEnd.toFixed(1)}" y1="${y + 3}" y2="${y + barHeight - 3}" stroke="#1d2330" stroke-width="1"/>`,
          );
          end = whiskerEnd;
        }
        const label = `${formatValue(bar.value)}${bar.whisker ? ` (p90 ${formatValue(bar.whisker)})` : ""}${bar.note ? ` ${bar.note}` : ""}`;
        parts.push(
          `<text x="${(end + 6).toFixed(1)}" y="${y + barHeight - 4}" font-size="11" fill="#1d2330">${escapeXml(label)}</text>`,
        );
      }
      y += barHeight + barGap;
    }
    y += groupGap;
  }
  const plotBottom = y - groupGap + 6;
  const ticks: string[] = [];
  for (let tick = 0; tick <= 4; tick++) {
    const value = (maximum * tick) / 4;
    const x = labelWidth + scale(value);
    ticks.push(
      `<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${top - 6}" y2="${plotBottom}" stroke="#e6e9ef"/>` +
        `<text x="${x.toFixed(1)}" y="${plotBottom + 14}" text-anchor="middle" font-size="10" fill="#5d6678">${formatValue(value)}</text>`,
    );
  }
  const legendTop = plotBottom + 34;
  // Items flow left to right and wrap; widths are estimated from the text (about 7 px per character).
  const legend: string[] = [];
  let legendX = labelWidth;
  let legendY = legendTop;
  for (const name of series) {
    const itemWidth = 18 + name.length * 7 + 24;
    if (legendX > labelWidth && legendX + itemWidth > width - 10) {
      legendX = labelWidth;
      legendY += 22;
    }
    legend.push(
      `<rect x="${legendX}" y="${legendY}" width="12" height="12" rx="2" fill="${colourOf(name)}"/><text x="${legendX + 18}" y="${legendY + 10}" font-size="12" fill="#1d2330">${escapeXml(name)}</text>`,
    );
    legendX += itemWidth;
  }
  const legendHeight = legendY - legendTop + 30;
  const height = legendTop + legendHeight;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="24" font-size="16" font-weight="600" fill="#1d2330">${escapeXml(input.title)}</text>`,
    input.subtitle
      ? `<text x="16" y="44" font-size="12" fill="#5d6678">${escapeXml(input.subtitle)}</text>`
      : "",
    ...ticks,
    ...parts,
    `<text x="${labelWidth + plotWidth}" y="${plotBottom + 28}" text-anchor="end" font-size="11" fill="#5d6678">${escapeXml(input.unit)} (bar: median, whisker: p90)</text>`,
    ...legend,
    "</svg>",
    "",
  ].join("\n");
}
