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
`;

export const DASHBOARD_JS = `
(() => {
  'use strict';
  const seconds = Number(document.body.dataset.refreshSeconds) || 10;
  const status = document.getElementById('refresh-status');
  async function refresh() {
    const content = document.getElementById('content');
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
      status.textContent = 'updated ' + new Date().toISOString().replace('T', ' ').replace(/\\.\\d{3}Z$/, 'Z');
      status.classList.remove('stale');
    } catch (error) {
      status.textContent = 'not updated since ' + status.textContent.replace(/^(updated|not updated since) /, '') + ' (' + error.message + ')';
      status.classList.add('stale');
    }
  }
  setInterval(refresh, seconds * 1000);
})();
`;
