// A horizontal stacked bar chart as a standalone SVG string: one bar per row, one coloured segment per
// stage, so where the time goes reads at a glance. Same conventions as svg-bar-chart.ts (no scripts, no
// fonts to fetch).

export interface StackedBar {
  label: string;
  /** One value per segment title, in the chart's order. */
  values: number[];
}

export interface StackedChartInput {
  title: string;
  subtitle?: string;
  unit: string;
  segments: string[];
  bars: StackedBar[];
}

const colors = ["#7f8c8d", "#8e44ad", "#e67e22", "#c0392b", "#3559c7", "#27ae60", "#16a085", "#d35400"];

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export function svgStackedChart(input: StackedChartInput): string {
  const labelWidth = 260;
  const plotWidth = 560;
  const barHeight = 22;
  const top = input.subtitle === undefined ? 40 : 58;
  const legendTop = top + input.bars.length * (barHeight + 10) + 10;
  const height = legendTop + Math.ceil(input.segments.length / 3) * 20 + 16;
  const width = labelWidth + plotWidth + 90;
  const largest = Math.max(
    1e-9,
    ...input.bars.map((bar) => bar.values.reduce((a, b) => a + Math.max(0, b), 0)),
  );
  const scale = plotWidth / largest;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="24" font-size="16" font-weight="bold">${escapeXml(input.title)}</text>`,
  ];
  if (input.subtitle !== undefined)
    parts.push(`<text x="12" y="42" fill="#555">${escapeXml(input.subtitle)}</text>`);
  input.bars.forEach((bar, row) => {
    const y = top + row * (barHeight + 10);
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + barHeight / 2 + 4}" text-anchor="end">${escapeXml(bar.label)}</text>`,
    );
    let x = labelWidth;
    bar.values.forEach((value, index) => {
      const w = Math.max(0, value) * scale;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" fill="${colors[index % colors.length]}"><title>${escapeXml(`${input.segments[index]}: ${value.toFixed(3)} ${input.unit}`)}</title></rect>`,
      );
      x += w;
    });
    const total = bar.values.reduce((a, b) => a + b, 0);
    parts.push(
      `<text x="${(x + 6).toFixed(1)}" y="${y + barHeight / 2 + 4}">${total.toFixed(2)} ${escapeXml(input.unit)}</text>`,
    );
  });
  input.segments.forEach((segment, index) => {
    const x = 12 + (index % 3) * 260;
    const y = legendTop + Math.floor(index / 3) * 20;
    parts.push(
      `<rect x="${x}" y="${y}" width="12" height="12" fill="${colors[index % colors.length]}"/>`,
      `<text x="${x + 18}" y="${y + 10}">${escapeXml(segment)}</text>`,
    );
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
