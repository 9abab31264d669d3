import { HISTORY_RUNS, type RunMark } from '../dashboard-model.js';
import { html, type SafeHtml } from '../html.js';
import { briefDuration } from '../outcome-text.js';
import { renderSvgPicture } from './svg-picture.js';
import { round } from './time-axis.js';

const SLOT = 9;
const BAR = 7;
const HEIGHT = 28;
const MIN_BAR = 4;

/**
 * A definition's last runs at a glance: one mark per run, oldest on the left, coloured by how it
 * ended and as tall as it took (relative to the longest of them; runs that never started, such
 * as skipped or missed fires, are short stubs). Hovering a mark names the run.
 */
export function renderRunStrip(definitionId: string, marks: readonly RunMark[]): SafeHtml {
  const shown = marks.slice(0, HISTORY_RUNS).reverse();
  const width = HISTORY_RUNS * SLOT;
  const longest = Math.max(1, ...shown.map((mark) => mark.durationMs ?? 0));
  const offset = (HISTORY_RUNS - shown.length) * SLOT;
  const label =
    shown.length === 0
      ? `${definitionId}: no runs yet`
      : `${definitionId}: the last ${shown.length} run(s), oldest first: ${summary(shown)}`;
  return renderSvgPicture(
    {
      className: 'run-strip',
      label,
      width,
      height: HEIGHT,
      data: { 'definition-id': definitionId, runs: shown.length },
    },
    html`<line class="baseline" x1="0" y1="${HEIGHT - 0.5}" x2="${width}" y2="${HEIGHT - 0.5}" />
      ${shown.map((mark, index) => {
        const height =
          mark.durationMs === undefined
            ? MIN_BAR
            : round(MIN_BAR + (HEIGHT - 2 - MIN_BAR) * (mark.durationMs / longest));
        const took =
          mark.durationMs === undefined ? '' : `, took ${briefDuration(mark.durationMs)}`;
        return html`<rect
          class="run-mark mark-${mark.status}"
          x="${offset + index * SLOT + 1}"
          y="${round(HEIGHT - 1 - height)}"
          width="${BAR}"
          height="${height}"
          data-run-id="${mark.runId}"
          data-status="${mark.status}"
          ${mark.durationMs === undefined ? '' : html`data-duration-ms="${mark.durationMs}"`}
          ><title>
            ${mark.runId}:
            ${mark.status}${took}${mark.detail === undefined ? '' : ` (${mark.detail})`}
          </title></rect
        >`;
      })}`,
  );
}

function summary(marks: readonly RunMark[]): string {
  const byStatus = new Map<string, number>();
  for (const mark of marks) byStatus.set(mark.status, (byStatus.get(mark.status) ?? 0) + 1);
  return [...byStatus.entries()].map(([status, count]) => `${count} ${status}`).join(', ');
}
