/**
 * The dashboard's stylesheet and script, served from paw's own routes (no CDN, no inline code,
 * so the page's Content-Security-Policy can forbid both). Kept as strings so the compiled
 * `dist/` needs no asset files beside it.
 */

export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --bad: #c62828; --ok: #2e7d32; --warn: #ef6c00; --muted: #777; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 1.5rem 2rem; }
header { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; border-bottom: 1px solid #8884; padding: .5rem 0; }
header h1 { margin: 0; font-size: 1.4rem; }
nav { display: flex; gap: .8rem; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .4rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #8883; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.nowrap { white-space: nowrap; }
.problem { color: var(--bad); font-weight: 600; }
.badge { display: inline-block; padding: 0 .4rem; border-radius: .6rem; font-size: .8rem; border: 1px solid currentColor; }
.status-succeeded { color: var(--ok); }
.status-failed, .status-timed-out, .status-missed { color: var(--bad); }
.status-canceled, .status-skipped { color: var(--warn); }
.status-running, .status-queued { color: #1565c0; }
details.run { border: 1px solid #8884; border-radius: .4rem; margin: .4rem 0; padding: .3rem .6rem; }
details.run[data-status="failed"], details.run[data-status="missed"], details.run[data-status="timed-out"] { border-color: var(--bad); }
details.run summary { cursor: pointer; }
.reason { max-width: 40rem; overflow-wrap: anywhere; }
#refresh-status.stale { color: var(--bad); }
.refused { border: 1px solid var(--bad); border-radius: .4rem; padding: .2rem .8rem; margin: .4rem 0; }
.refused ul { margin: .2rem 0 .4rem; }
svg text { fill: currentColor; font-size: 10px; }
.run-strip { display: block; }
.run-strip .baseline, .picture .axis line, .window-timeline .row-rule { stroke: #8886; stroke-width: 1; }
.mark-succeeded, .segment.succeeded { fill: var(--ok); }
.mark-failed, .mark-timed-out, .mark-missed, .segment.failed, .failure-mark { fill: var(--bad); }
.mark-canceled, .mark-skipped, .segment.other { fill: var(--warn); }
.mark-running, .mark-queued { fill: #1565c0; }
.run-mark:hover, .bucket:hover .segment { opacity: .7; }
figure.picture { margin: .5rem 0; }
figure.picture figcaption { font-size: .8rem; }
.rate-limited { fill: #8e24aa; }
.waiting-line { fill: none; stroke: #1565c0; stroke-width: 1.5; stroke-dasharray: 4 2; }
.in-flight-line { fill: none; stroke: var(--muted); stroke-width: 1.5; }
.window-timeline .held { fill: #1565c0; fill-opacity: .45; }
.window-timeline .held.open { stroke: #1565c0; stroke-dasharray: 3 2; }
.window-timeline .left-alone { fill: none; stroke: var(--warn); stroke-width: 1.5; stroke-dasharray: 4 3; }
.window-timeline .step { fill: #1565c0; }
.window-timeline .step-failed { fill: var(--bad); stroke: var(--bad); stroke-width: 2; }
.key::before { content: ""; display: inline-block; width: .7rem; height: .7rem; margin: 0 .2rem 0 .4rem; vertical-align: -1px; }
.key.succeeded::before { background: var(--ok); }
.key.failed::before { background: var(--bad); }
.key.other::before, .key.left-alone::before { background: var(--warn); }
.key.waiting::before { background: #1565c0; height: 2px; vertical-align: 3px; }
.key.in-flight::before { background: var(--muted); height: 2px; vertical-align: 3px; }
.key.rate-limited::before { background: #8e24aa; }
.key.paused::before { background: #1565c0; opacity: .6; }
.coverage h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
.coverage-legend .legend-entry { margin-right: 1rem; white-space: nowrap; }
td.marks { white-space: nowrap; }
a.mark, span.mark { display: inline-block; width: 1.1rem; height: 1.1rem; margin-right: 2px; border-radius: 2px; text-align: center; line-height: 1.1rem; font-size: .75rem; font-weight: 700; text-decoration: none; color: #fff; vertical-align: middle; }
.mark.mark-succeeded { background: var(--ok); }
.mark.mark-failed, .mark.mark-timed-out { background: var(--bad); }
.mark.mark-canceled { background: #b45309; }
.mark.mark-skipped { background: #5f6b7a; }
.mark.mark-queued, .mark.mark-running { background: #1565c0; }
.mark.mark-absent { background: transparent; color: var(--muted); box-shadow: inset 0 0 0 1px #8888; }
a.mark:hover, a.mark:focus { outline: 2px solid currentColor; outline-offset: 1px; }
th a[aria-current] { font-weight: 700; text-decoration: none; }
th a[aria-current]::after { content: " ▾"; }
form.retry { margin: .4rem 0; display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; }
form.retry input { min-width: 18rem; }
form.retry output.failed { color: var(--bad); }
`;

export const DASHBOARD_JS = `
(() => {
  'use strict';
  const seconds = Number(document.body.dataset.refreshSeconds) || 10;
  const status = document.getElementById('refresh-status');
  const content = document.getElementById('content');
  // Someone typing a retry's reason would lose it if the content were replaced under them.
  function editing() {
    for (const input of content.querySelectorAll('form.retry input')) {
      if (input.value !== '' || input === document.activeElement) return true;
    }
    return false;
  }
  // What each retry came to, by the run it retried: a refresh draws its form anew, and the
  // operator must still see which run their click started.
  const retried = new Map();
  function showRetried() {
    for (const [runId, said] of retried) {
      const shown = content.querySelector('form.retry[data-run-id="' + CSS.escape(runId) + '"] output');
      if (shown === null) continue;
      shown.textContent = said.text;
      shown.dataset.newRunId = said.newRunId;
    }
  }
  async function refresh() {
    const open = new Map();
    for (const details of content.querySelectorAll('details[data-run-id]')) {
      open.set(details.dataset.runId, details.open);
    }
    try {
      const response = await fetch('/dashboard/content', { cache: 'no-store' });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      content.innerHTML = await response.text();
      for (const details of content.querySelectorAll('details[data-run-id]')) {
        if (open.has(details.dataset.runId)) details.open = open.get(details.dataset.runId);
      }
      showRetried();
      status.textContent = 'updated ' + new Date().toISOString().replace('T', ' ').replace(/\\.\\d{3}Z$/, 'Z');
      status.classList.remove('stale');
    } catch (error) {
      status.textContent = 'not updated since ' + status.textContent.replace(/^(updated|not updated since) /, '') + ' (' + error.message + ')';
      status.classList.add('stale');
    }
  }
  setInterval(() => {
    if (!editing()) void refresh();
  }, seconds * 1000);
  // The retry form: the same as paw retry <runId>, through the server's auth and write mode.
  content.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('retry')) return;
    event.preventDefault();
    const output = form.querySelector('output');
    const button = form.querySelector('button');
    button.disabled = true;
    output.classList.remove('failed');
    output.textContent = 'retrying…';
    try {
      const response = await fetch('/api/runs/' + encodeURIComponent(form.dataset.runId) + '/retry', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reason: form.elements.reason.value }),
      });
      const result = await response.json();
      if (!response.ok) throw new Error(result.error || 'HTTP ' + response.status);
      form.elements.reason.value = '';
      await refresh();
      retried.set(form.dataset.runId, {
        text: result.outcome === 'nothing'
          ? 'nothing to retry'
          : (result.outcome === 'exists' ? 'already retried as ' : 'started ') + result.runId,
        newRunId: result.runId || '',
      });
      // The refresh drew the form anew (the new run above it): say there what came of it.
      showRetried();
    } catch (error) {
      output.textContent = 'not retried: ' + error.message;
      output.classList.add('failed');
      button.disabled = false;
    }
  });
})();
`;
