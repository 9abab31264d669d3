import type { ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import type {
  DashboardModel,
  DefinitionView,
  QueueView,
  RefusedDefinitions,
  RunView,
} from './dashboard-model.js';
import { describePause } from '../../scheduler/schedule-pauses.js';
import { html, type SafeHtml } from './html.js';
import { briefDuration, countsText, itemReason, runReason } from './outcome-text.js';
import { renderProgressChart } from './svg/progress-chart.js';
import { renderRunStrip } from './svg/run-strip.js';
import { renderWindowTimeline } from './svg/window-timeline.js';

/** What the page says about the process serving it. */
export interface PageContext {
  /** `scheduler`, `worker`, `start` or `demo`. */
  readonly role: string;
  readonly version: string;
  /** Whether `/queues` (bull-board) is served. */
  readonly queuesUi: boolean;
  /** Seconds between refreshes. */
  readonly refreshSeconds: number;
  /**
   * Whether the page offers to retry a run's failed items (POST /api/runs/<id>/retry), or why
   * not: the server is read-only (http.queuesReadOnly), or this process loaded no definitions.
   */
  readonly retry: { readonly offered: true } | { readonly offered: false; readonly why: string };
}

/** Run statuses that mean something went wrong (the run is shown open). */
const BAD_RUN_STATUSES = new Set(['failed', 'timed-out', 'canceled', 'missed']);

/** The whole page: server-rendered, so it works without JavaScript; the script refreshes it. */
export function renderDashboardPage(model: DashboardModel, context: PageContext): string {
  return renderPage(context, {
    title: 'paw dashboard',
    generatedAt: model.generatedAt,
    refreshing: true,
    content: renderDashboardContent(model, context),
  });
}

/**
 * A page of the dashboard: its header and navigation (each view linked from every page), and
 * `content`. Only a refreshing page loads the script, which replaces `#content` with the
 * dashboard's.
 */
export function renderPage(
  context: PageContext,
  page: {
    readonly title: string;
    readonly generatedAt: string;
    readonly refreshing: boolean;
    readonly content: SafeHtml;
  },
): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${page.title}</title>
        <link rel="stylesheet" href="/dashboard.css" />
        ${page.refreshing ? html`<script src="/dashboard.js" defer></script>` : ''}
      </head>
      <body data-refresh-seconds="${context.refreshSeconds}">
        <header>
          <h1>paw</h1>
          <span class="muted">${context.role} · v${context.version}</span>
          <nav>
            <a href="/">Dashboard</a>
            <a href="/coverage">Coverage</a>
            ${context.queuesUi ? html`<a href="/queues">Queues (bull-board)</a>` : ''}
            <a href="/metrics">Metrics</a>
            <a href="/api/dashboard">JSON</a>
          </nav>
          <span id="refresh-status" class="muted" role="status"
            >updated ${formatTime(page.generatedAt)}</span
          >
        </header>
        <main id="content">${page.content}</main>
      </body>
    </html> `.text;
}

/** The part of the page the script replaces at each refresh. */
export function renderDashboardContent(model: DashboardModel, context: PageContext): SafeHtml {
  return html` <section id="queues">
      <h2>Queues</h2>
      ${renderQueues(model, context)}
    </section>
    <section id="definitions">
      <h2>Definitions</h2>
      ${
        model.refusedChange === undefined
          ? ''
          : renderRefusedChange(model.refusedChange, model.definitions?.length ?? 0)
      }
      ${
        model.definitions === undefined
          ? html`<p class="muted">
              This process runs workers only and loaded no job definitions; the scheduler's
              dashboard lists them.
            </p>`
          : renderDefinitions(model.definitions)
      }
    </section>
    <section id="runs">
      <h2>Recent runs</h2>
      ${
        model.runs.length === 0
          ? html`<p class="muted">No runs yet.</p>`
          : model.runs.map((view) => renderRun(view, context))
      }
    </section>
    <p class="muted" id="generated-at" data-generated-at="${model.generatedAt}">
      Generated ${formatTime(model.generatedAt)}
    </p>`;
}

/**
 * Definitions that were refused: the last valid set runs on (or none, when there never was
 * one: an empty folder), and this says what to fix.
 */
function renderRefusedChange(change: RefusedDefinitions, running: number): SafeHtml {
  return html`<div class="refused" id="definitions-refused" role="alert">
    <p class="problem">
      ${
        running === 0
          ? html`No job definitions run: those read at ${formatTime(change.at)} were refused, and
              nothing is scheduled until the files are fixed (<code>paw validate</code> checks
              them):`
          : html`A change to the job definitions was refused at ${formatTime(change.at)}; the last
              valid set keeps running until the files are fixed (<code>paw validate</code> checks
              them):`
      }
    </p>
    <ul>
      ${change.problems.map((problem) => html`<li><code>${problem}</code></li>`)}
    </ul>
  </div>`;
}

function renderQueues(model: DashboardModel, context: PageContext): SafeHtml {
  if (model.queueError !== undefined) {
    return html`<p class="problem">Cannot read the queues: ${model.queueError}</p>`;
  }
  return html`<table>
    <thead>
      <tr>
        <th>Queue</th>
        <th>Kind</th>
        <th>Waiting</th>
        <th>Active</th>
        <th>Delayed</th>
        <th>Failed</th>
        <th>Completed</th>
        <th>Workers</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${model.queues.map((queue) => renderQueue(queue, context))}
    </tbody>
  </table>`;
}

function renderQueue(queue: QueueView, context: PageContext): SafeHtml {
  const count = (state: string): number => queue.counts[state] ?? 0;
  const waiting = count('waiting') + count('prioritized') + count('waiting-children');
  return html`<tr>
    <td>
      ${context.queuesUi ? html`<a href="/queues/queue/${encodeURIComponent(queue.name)}">${queue.name}</a>` : queue.name}
    </td>
    <td>${queue.kind}</td>
    <td class="num">${waiting}</td>
    <td class="num">${count('active')}</td>
    <td class="num">${count('delayed')}</td>
    <td class="num${count('failed') > 0 ? ' problem' : ''}">${count('failed')}</td>
    <td class="num">${count('completed')}</td>
    <td class="num">${queue.workers ?? '?'}</td>
    <td>${queue.paused ? html`<span class="badge status-failed">paused</span>` : ''}</td>
  </tr>`;
}

function renderDefinitions(definitions: readonly DefinitionView[]): SafeHtml {
  if (definitions.length === 0) return html`<p class="muted">No job definitions.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th>Definition</th>
        <th>Kind</th>
        <th>Schedule</th>
        <th>Next fires</th>
        <th>Last runs</th>
        <th>Last run</th>
        <th>Notify</th>
      </tr>
    </thead>
    <tbody>
      ${definitions.map(renderDefinition)}
    </tbody>
  </table>`;
}

function renderDefinition(definition: DefinitionView): SafeHtml {
  const last = definition.lastRun;
  return html`<tr data-definition-id="${definition.id}">
    <td>
      <strong>${definition.id}</strong
      >${definition.enabled ? '' : html` <span class="badge">disabled</span>`}${
        definition.pause === undefined
          ? ''
          : html` <span class="badge" title="${describePause(definition.pause)}">paused</span
              ><br /><span class="muted"
                >paused by ${definition.pause.by}:
                ${definition.pause.reason}${
                  definition.pause.until === undefined
                    ? ''
                    : ` (until ${formatTime(definition.pause.until)})`
                }</span
              >`
      }${
        definition.description === undefined
          ? ''
          : html`<br /><span class="muted">${definition.description}</span>`
      }
    </td>
    <td>${definition.kind}</td>
    <td><code>${definition.cron}</code> <span class="muted">${definition.timezone}</span></td>
    <td>
      ${
        definition.nextFires.length === 0
          ? html`<span class="muted">—</span>`
          : definition.nextFires.map((fire) => html`<div class="nowrap">${formatTime(fire)}</div>`)
      }
    </td>
    <td>${renderRunStrip(definition.id, definition.history)}</td>
    <td>
      ${
        last === undefined
          ? html`<span class="muted">never ran</span>`
          : html`${statusBadge(last.status)}
              <a href="#run-${anchor(last.runId)}">${formatTime(last.fireTime)}</a><br /><span
                class="muted"
                >${countsText(last.counts)}</span
              >`
      }
    </td>
    <td>
      ${
        definition.notify === undefined
          ? html`<span class="muted">—</span>`
          : html`${definition.notify.on} · ${definition.notify.format}<br /><span class="muted"
                >${definition.notify.target}</span
              >`
      }
    </td>
  </tr>`;
}

function renderRun(view: RunView, context: PageContext): SafeHtml {
  const { run } = view;
  const troubled = BAD_RUN_STATUSES.has(run.status) || run.counts.failed + run.counts.timedOut > 0;
  const reason = runReason(run);
  return html`<details
    class="run"
    id="run-${anchor(run.runId)}"
    data-run-id="${run.runId}"
    data-status="${run.status}"
    ${troubled ? html` open` : ''}
  >
    <summary>
      ${statusBadge(run.status)} <strong>${run.definitionId}</strong>
      <span class="muted">${run.kind} · ${run.trigger}</span> · fired
      ${formatTime(run.fireTime)}${
        run.finishedAt === undefined ? '' : html` · took ${formatDuration(run)}`
      }
      · <span class="counts">${countsText(run.counts)}</span>
    </summary>
    <p class="muted">${run.runId}</p>
    ${reason === undefined ? '' : html`<p class="reason">${reason}</p>`}
    ${view.progress === undefined ? '' : renderProgressChart(run.runId, view.progress)}
    ${view.timeline === undefined ? '' : renderWindowTimeline(run.runId, view.timeline)}
    ${renderRetry(run, context)}
    ${
      view.items.length === 0
        ? ''
        : html`<table class="items">
            <thead>
              <tr>
                <th>Status</th>
                <th>Target</th>
                <th>Action</th>
                <th>Reason</th>
                <th>Platform job</th>
                <th>Finished</th>
              </tr>
            </thead>
            <tbody>
              ${view.items.map(renderItem)}
            </tbody>
          </table>`
    }
    ${view.itemsError === undefined ? '' : html`<p class="problem">${view.itemsError}</p>`}
    ${view.itemsNotShown > 0 ? html`<p class="muted">… and ${view.itemsNotShown} more item${view.itemsNotShown === 1 ? '' : 's'} (<code>paw outcomes --run ${run.runId}</code>)</p>` : ''}
  </details>`;
}

/**
 * The retry form of an ended snapshot run with items that did not succeed: the same as
 * `paw retry <runId>`, asking why (recorded with the action). The script sends it; the server
 * checks who may (write mode, same origin) and records it.
 */
function renderRetry(run: RunRecord, context: PageContext): SafeHtml | string {
  const notSucceeded = run.counts.failed + run.counts.timedOut + run.counts.canceled;
  if (run.kind !== 'snapshot' || isActiveStatus(run.status) || notSucceeded === 0) return '';
  const items = `${notSucceeded} item${notSucceeded === 1 ? '' : 's'}`;
  if (!context.retry.offered) {
    return html`<p class="muted retry-offline">
      Retry the ${items} that did not succeed with <code>paw retry ${run.runId}</code>
      (${context.retry.why}).
    </p>`;
  }
  return html`<form class="retry" data-run-id="${run.runId}">
    <label
      >Retry the ${items} that did not succeed (failed, timed out, canceled) as a new run, because
      <input name="reason" required maxlength="500" placeholder="why, e.g. cluster-b is back" />
    </label>
    <button type="submit">Retry</button>
    <output class="retry-result" role="status"></output>
  </form>`;
}

function renderItem(item: ItemRecord): SafeHtml {
  const reason = itemReason(item);
  return html`<tr class="item" data-item-key="${item.itemKey}" data-status="${item.status}">
    <td>${statusBadge(item.status)}</td>
    <td>
      ${item.targetName ?? item.target ?? item.itemKey}${
        item.targetType === undefined
          ? ''
          : html`<br /><span class="muted">${item.targetType}</span>`
      }
    </td>
    <td>${item.action ?? ''}</td>
    <td class="reason">${reason ?? ''}</td>
    <td><span class="muted">${item.platformJobId ?? ''}</span></td>
    <td>${item.finishedAt === undefined ? '' : formatTime(item.finishedAt)}</td>
  </tr>`;
}

function statusBadge(status: string): SafeHtml {
  return html`<span class="badge status-${status}">${status}</span>`;
}

export function formatTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

function formatDuration(run: RunRecord): string {
  const start = Date.parse(run.startedAt ?? run.fireTime);
  const end = Date.parse(run.finishedAt ?? run.fireTime);
  return briefDuration(end - start);
}

/** A run id as an HTML id (run ids hold `@` and `.`, which are fine, but keep it tidy). */
function anchor(runId: string): string {
  return runId.replace(/[^A-Za-z0-9_-]/g, '_');
}
