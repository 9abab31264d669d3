import { html, type SafeHtml } from '../html.js';
import type { WindowRow, WindowStep, WindowTimeline } from '../window-timeline.js';
import { renderSvgPicture } from './svg-picture.js';
import { renderTimeAxis, round, timeScale } from './time-axis.js';

const WIDTH = 640;
const LABEL_WIDTH = 190;
const LEFT = LABEL_WIDTH + 6;
const PLOT_WIDTH = WIDTH - LEFT - 8;
const ROW = 20;
const TOP = 4;
/** Longer names are cut on the picture; the row's title has them whole. */
const MAX_LABEL = 30;

/** What each state looks like in words (the row's title and the caption). */
const STATE_TEXT: Record<WindowRow['state'], string> = {
  paused: 'paused by paw',
  'left-alone': 'left alone (paused by someone else, or its state unknown)',
  failed: 'not paused (the pause failed)',
};

/**
 * A window run's timeline: a row per SLA Domain and cluster, between the window's start and its
 * end (or now, while it is open). A domain paw paused is a solid bar from its pause to its
 * resume, with a mark at each (red when that step failed); one paw left alone (someone else's
 * pause) is a dashed, hollow bar across the window: paw neither paused nor resumes it; a
 * failed pause is a red cross. Hovering a row gives each step's time and reason.
 */
export function renderWindowTimeline(runId: string, timeline: WindowTimeline): SafeHtml {
  const startMs = Date.parse(timeline.start);
  const endMs = Date.parse(timeline.end);
  const x = timeScale(startMs, endMs, LEFT, PLOT_WIDTH);
  const axisY = TOP + timeline.rows.length * ROW + 14;
  const height = axisY + 4;
  const counts = (state: WindowRow['state']): number =>
    timeline.rows.filter((row) => row.state === state).length;
  const label =
    `${runId}: ${counts('paused')} paused by paw, ${counts('left-alone')} left alone, ` +
    `${counts('failed')} not paused${timeline.open ? '; the window is open' : ''}`;

  return html`<figure class="picture window" data-run-id="${runId}">
    ${renderSvgPicture(
      {
        className: 'window-timeline',
        label,
        width: WIDTH,
        height,
        data: { rows: timeline.rows.length, open: timeline.open },
      },
      html`${timeline.rows.map((row, index) => renderRow(row, TOP + index * ROW, x, startMs, endMs, timeline.open))}
      ${renderTimeAxis(startMs, endMs, LEFT, PLOT_WIDTH, axisY)}`,
    )}
    <figcaption class="muted">
      <span class="key paused">paused by paw, until its resume</span>
      <span class="key left-alone"
        >left alone: paused by someone else (or its state unknown), paw does not resume it</span
      >
      <span class="key failed">failed</span
      >${timeline.open ? ' · the window is open: its resume is due' : ''}${
        timeline.rowsNotShown === 0 ? '' : ` · and ${timeline.rowsNotShown} more not drawn`
      }
    </figcaption>
  </figure>`;
}

function renderRow(
  row: WindowRow,
  top: number,
  x: (ms: number) => number,
  startMs: number,
  endMs: number,
  open: boolean,
): SafeHtml {
  const middle = top + ROW / 2;
  const name = row.name.length > MAX_LABEL ? `${row.name.slice(0, MAX_LABEL - 1)}…` : row.name;
  const title = [
    `${row.name}: ${STATE_TEXT[row.state]}`,
    stepText('pause', row.pause),
    stepText('resume', row.resume),
  ]
    .filter((line) => line !== undefined)
    .join('\n');
  const pauseAt = row.pause?.at === undefined ? undefined : Date.parse(row.pause.at);
  const resumeAt = row.resume?.at === undefined ? undefined : Date.parse(row.resume.at);
  let shape: SafeHtml | string = '';
  if (row.state === 'paused') {
    const from = x(pauseAt ?? startMs);
    const to = x(resumeAt ?? endMs);
    shape = html`<rect
        class="held${resumeAt === undefined && open ? ' open' : ''}"
        x="${from}"
        y="${top + 4}"
        width="${round(Math.max(2, to - from))}"
        height="${ROW - 8}"
      />${
        pauseAt === undefined ? '' : stepMark('pause', row.pause, x(pauseAt), middle)
      }${resumeAt === undefined ? '' : stepMark('resume', row.resume, x(resumeAt), middle)}`;
  } else if (row.state === 'left-alone') {
    shape = html`<rect
        class="left-alone"
        x="${x(pauseAt ?? startMs)}"
        y="${top + 5}"
        width="${round(Math.max(2, x(endMs) - x(pauseAt ?? startMs)))}"
        height="${ROW - 10}"
      /><text class="row-note" x="${x(endMs) - 2}" y="${middle + 4}" text-anchor="end"
        >left alone</text
      >`;
  } else {
    const at = x(pauseAt ?? startMs);
    shape = html`<path class="step-failed" d="M${at - 4},${middle - 4} l8,8 m0,-8 l-8,8" />`;
  }
  return html`<g class="window-row" data-key="${row.key}" data-state="${row.state}"
    ><title>${title}</title
    ><text class="row-label" x="${LABEL_WIDTH}" y="${middle + 4}" text-anchor="end">${name}</text
    ><line
      class="row-rule"
      x1="${LEFT}"
      y1="${middle}"
      x2="${LEFT + PLOT_WIDTH}"
      y2="${middle}"
    />${shape}</g
  >`;
}

/** A pause (down) or resume (up) mark, red when the step failed. */
function stepMark(
  step: 'pause' | 'resume',
  state: WindowStep | undefined,
  at: number,
  middle: number,
): SafeHtml {
  const failed = state?.status === 'failed' ? ' step-failed' : '';
  const d =
    step === 'pause'
      ? `M${at - 4},${middle - 8} h8 l-4,6 z`
      : `M${at - 4},${middle + 8} h8 l-4,-6 z`;
  return html`<path class="step ${step}${failed}" d="${d}" />`;
}

function stepText(step: string, state: WindowStep | undefined): string | undefined {
  if (state === undefined) return undefined;
  const when =
    state.at === undefined ? 'due' : `${state.at.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z')}`;
  return `${step}: ${state.status}, ${when}${state.reason === undefined ? '' : `: ${state.reason}`}`;
}
