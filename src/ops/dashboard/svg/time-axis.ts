import { html, type SafeHtml } from '../html.js';

/** A linear map from instants (ms) to x coordinates between `x0` and `x0 + width`. */
export function timeScale(
  startMs: number,
  endMs: number,
  x0: number,
  width: number,
): (ms: number) => number {
  const span = Math.max(1, endMs - startMs);
  return (ms) => round(x0 + (Math.min(endMs, Math.max(startMs, ms)) - startMs) * (width / span));
}

/** `HH:MM` (or `HH:MM:SS` for a short span) in UTC, as the rest of the page shows times. */
export function clockTime(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  return spanMs < 10 * 60_000 ? iso.slice(11, 19) : iso.slice(11, 16);
}

/** Coordinates to a tenth of a pixel: shorter markup, no visible difference. */
export function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The time axis under a picture: its start, middle and end, in UTC. */
export function renderTimeAxis(
  startMs: number,
  endMs: number,
  x0: number,
  width: number,
  y: number,
): SafeHtml {
  const span = endMs - startMs;
  const ticks = [
    { at: startMs, anchor: 'start' },
    { at: startMs + span / 2, anchor: 'middle' },
    { at: endMs, anchor: 'end' },
  ];
  const x = timeScale(startMs, endMs, x0, width);
  return html`<g class="axis">
    <line x1="${x0}" y1="${y - 11}" x2="${x0 + width}" y2="${y - 11}" />
    ${ticks.map(
      (tick) =>
        html`<text x="${x(tick.at)}" y="${y}" text-anchor="${tick.anchor}"
          >${clockTime(tick.at, span)}${tick.anchor === 'end' ? ' UTC' : ''}</text
        >`,
    )}
  </g>`;
}
