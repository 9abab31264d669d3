import { html, type SafeHtml } from '../html.js';
import type { ProgressBucket, RunProgress } from '../run-progress.js';
import { renderSvgPicture } from './svg-picture.js';
import { clockTime, renderTimeAxis, round } from './time-axis.js';

const WIDTH = 640;
const LEFT = 34;
const PLOT_WIDTH = WIDTH - LEFT - 6;
/** The band of 429 marks above the bars. */
const BAND_TOP = 2;
const BAND_HEIGHT = 10;
const PLOT_TOP = 18;
const PLOT_HEIGHT = 96;
const AXIS_Y = PLOT_TOP + PLOT_HEIGHT + 14;
const HEIGHT = AXIS_Y + 4;

/**
 * A snapshot run's progress over time: a bar per slice of time (from a second for a short run
 * to a minute for an hour's, wider for a long night; at most 60 bars) of the items that ended
 * in it, succeeded at the bottom, then failed or timed out (red, with a mark above), then
 * canceled or skipped; the 429s the platform answered in each slice as marks in the band above;
 * and two lines over the whole height, scaled to the run's items: those paw had not sent yet
 * (waiting for a worker or the request budget) and those in flight (their platform jobs
 * running). Every mark names its numbers when hovered; the caption gives the totals.
 */
export function renderProgressChart(runId: string, progress: RunProgress): SafeHtml {
  const { buckets } = progress;
  const firstMs = Date.parse(buckets[0]?.at ?? progress.start);
  const bucketMs = progress.bucketSeconds * 1000;
  const axisEndMs = firstMs + buckets.length * bucketMs;
  const slot = PLOT_WIDTH / Math.max(1, buckets.length);
  const barWidth = Math.max(1, slot - (slot > 4 ? 1 : 0));
  const peak = Math.max(1, ...buckets.map((bucket) => ended(bucket)));
  const perSlice = sliceName(progress.bucketSeconds);
  const barY = (count: number): number => (count / peak) * PLOT_HEIGHT;
  const lineY = (count: number): number =>
    round(PLOT_TOP + PLOT_HEIGHT - (count / Math.max(1, progress.total)) * PLOT_HEIGHT);
  const lineX = (index: number): number => round(LEFT + (index + 1) * slot);
  // Each line starts where the run did: every item not sent yet, none in flight.
  const line = (atStart: number, pick: (bucket: ProgressBucket) => number): string =>
    [
      `${LEFT},${lineY(atStart)}`,
      ...buckets.map((bucket, index) => `${lineX(index)},${lineY(pick(bucket))}`),
    ].join(' ');
  const span = axisEndMs - firstMs;

  return html`<figure class="picture progress" data-run-id="${runId}">
    ${renderSvgPicture(
      {
        className: 'progress-chart',
        label: `${runId}: ${progress.ended} of ${progress.total} items ended, ${progress.failed} failed or timed out, ${progress.rateLimited} 429s from the platform`,
        width: WIDTH,
        height: HEIGHT,
        data: {
          total: progress.total,
          ended: progress.ended,
          failed: progress.failed,
          'rate-limited': progress.rateLimited,
          'bucket-seconds': progress.bucketSeconds,
        },
      },
      html`<text class="y-label" x="${LEFT - 4}" y="${PLOT_TOP + 8}" text-anchor="end"
          >${peak}</text
        >
        <text class="y-label" x="${LEFT - 4}" y="${PLOT_TOP + PLOT_HEIGHT}" text-anchor="end"
          >0</text
        >
        <text class="band-label" x="${LEFT - 4}" y="${BAND_TOP + 9}" text-anchor="end">429</text>
        ${buckets.map((bucket, index) => {
          const x = round(LEFT + index * slot);
          const at = clockTime(Date.parse(bucket.at), span);
          let top = PLOT_TOP + PLOT_HEIGHT;
          const segment = (count: number, kind: string): SafeHtml | string => {
            if (count === 0) return '';
            const height = Math.max(0.5, barY(count));
            top -= height;
            return html`<rect
              class="segment ${kind}"
              x="${x}"
              y="${round(top)}"
              width="${round(barWidth)}"
              height="${round(height)}"
            />`;
          };
          const bars = [
            segment(bucket.succeeded, 'succeeded'),
            segment(bucket.failed, 'failed'),
            segment(bucket.other, 'other'),
          ];
          return html`<g
            class="bucket"
            data-at="${bucket.at}"
            data-ended="${ended(bucket)}"
            data-failed="${bucket.failed}"
            data-rate-limited="${bucket.rateLimited}"
            ><title>
              ${at}, per ${perSlice}: ${ended(bucket)} ended (${bucket.succeeded} succeeded,
              ${bucket.failed} failed or timed out, ${bucket.other} canceled or skipped);
              ${bucket.waiting} not sent yet, ${bucket.inFlight} in flight; ${bucket.rateLimited}
              429s</title
            >${bars}${
              bucket.failed === 0
                ? ''
                : html`<path
                    class="failure-mark"
                    d="M${round(x + barWidth / 2)},${round(top - 2)} l-3,-5 h6 z"
                  />`
            }${
              bucket.rateLimited === 0
                ? ''
                : html`<rect
                    class="rate-limited"
                    x="${x}"
                    y="${BAND_TOP}"
                    width="${round(Math.max(2, barWidth))}"
                    height="${BAND_HEIGHT}"
                    data-count="${bucket.rateLimited}"
                  />`
            }</g
          >`;
        })}
        <polyline class="waiting-line" points="${line(progress.total, waitingOf)}">
          <title>
            not sent yet (paw waiting: workers busy, or the request budget spent after 429s)
          </title>
        </polyline>
        <polyline class="in-flight-line" points="${line(0, inFlightOf)}">
          <title>in flight: triggered, their platform jobs running</title>
        </polyline>
        ${renderTimeAxis(firstMs, axisEndMs, LEFT, PLOT_WIDTH, AXIS_Y)}`,
    )}
    <figcaption class="muted">
      Items ended per ${perSlice}: <span class="key succeeded">succeeded</span>
      <span class="key failed">failed or timed out</span>
      <span class="key other">canceled or skipped</span> · lines:
      <span class="key waiting">not sent yet (paw waiting)</span>
      <span class="key in-flight">in flight</span> · <span class="key rate-limited">429s</span> ·
      ${progress.ended} of ${progress.total} ended, ${progress.failed} failed, peak ${peak} per
      ${perSlice}, ${progress.rateLimited} 429s from the platform (all of paw's
      requests)${
        progress.sampled === undefined
          ? ''
          : ` · drawn from ${progress.sampled.read} of ${progress.sampled.of} items, scaled to the run's counts`
      }
    </figcaption>
  </figure>`;
}

/** `10 s`, `minute`, `5 minutes`, `hour`, `2 hours`: what one bar counts. */
function sliceName(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
}

function ended(bucket: ProgressBucket): number {
  return bucket.succeeded + bucket.failed + bucket.other;
}

function waitingOf(bucket: ProgressBucket): number {
  return bucket.waiting;
}

function inFlightOf(bucket: ProgressBucket): number {
  return bucket.inFlight;
}
