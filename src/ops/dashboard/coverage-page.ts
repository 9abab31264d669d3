import type { DefinitionGrid, GridMark, GridOptions, GridRow } from './coverage-grid.js';
import { formatTime, renderPage, type PageContext } from './dashboard-page.js';
import { html, type SafeHtml } from './html.js';

/** Each mark's words (its text alternative and the legend) and glyph (not colour alone). */
const MARKS: Readonly<Record<GridMark, { readonly words: string; readonly glyph: string }>> = {
  succeeded: { words: 'succeeded', glyph: '✓' },
  failed: { words: 'failed', glyph: '✗' },
  'timed-out': { words: 'timed out', glyph: '✗' },
  canceled: { words: 'canceled', glyph: '–' },
  skipped: { words: 'skipped', glyph: '/' },
  queued: { words: 'queued', glyph: '…' },
  running: { words: 'running', glyph: '…' },
  absent: { words: 'not in that run', glyph: '·' },
};

const LEGEND: readonly GridMark[] = ['succeeded', 'failed', 'canceled', 'skipped', 'absent'];

/**
 * The coverage view: per snapshot definition, its workloads × its last runs as marks coloured by
 * each item's outcome, so a failing streak reads as a row of red. Server-rendered and sorted by
 * links, so it needs no script.
 */
export function renderCoveragePage(
  grids: readonly DefinitionGrid[],
  options: GridOptions,
  generatedAt: string,
  context: PageContext,
): string {
  return renderPage(context, {
    title: 'paw coverage',
    generatedAt,
    refreshing: false,
    content: html`<h2>Protection coverage</h2>
      <p class="muted">
        Each snapshot definition's workloads now, each with its state (<code>paw coverage</code>)
        and its item in each of the last runs, oldest on the left.
      </p>
      ${renderLegend()}
      ${
        grids.length === 0
          ? html`<p class="muted">No snapshot definitions.</p>`
          : grids.map((grid) => renderGrid(grid, options))
      }`,
  });
}

function renderLegend(): SafeHtml {
  return html`<p class="coverage-legend">
    ${LEGEND.map(
      (mark) =>
        html`<span class="legend-entry"
          ><span class="mark mark-${mark}" aria-hidden="true">${MARKS[mark].glyph}</span>
          ${MARKS[mark].words}</span
        >`,
    )}
  </p>`;
}

function renderGrid(grid: DefinitionGrid, options: GridOptions): SafeHtml {
  const { coverage } = grid;
  const id = coverage.definitionId;
  const counts = Object.entries(coverage.counts)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
  const sortLink = (sort: GridOptions['sort'], label: string): SafeHtml =>
    options.sort === sort
      ? html`<a href="${gridUrl(id, { ...options, sort, offset: 0 })}" aria-current="true"
          >${label}</a
        >`
      : html`<a href="${gridUrl(id, { ...options, sort, offset: 0 })}">${label}</a>`;
  return html`<section class="coverage" data-definition-id="${id}">
    <h3>
      ${id}${coverage.enabled ? '' : html` <span class="badge">disabled</span>`}
      <span class="muted">${grid.total} workloads: ${counts}</span>
    </h3>
    ${
      grid.total === 0
        ? html`<p class="muted">It covers no workloads now.</p>`
        : html`<table class="coverage-grid">
            <thead>
              <tr>
                <th>${sortLink('state', 'State')}</th>
                <th class="num">${sortLink('streak', 'Streak')}</th>
                <th>${sortLink('name', 'Workload')}</th>
                <th>
                  Last ${grid.runs.length} run${grid.runs.length === 1 ? '' : 's'}
                  <span class="muted"
                    >${
                      grid.runs.length === 0
                        ? ''
                        : `${formatTime(grid.runs[0]?.fireTime ?? '')} →
                          ${formatTime(grid.runs.at(-1)?.fireTime ?? '')}`
                    }</span
                  >
                </th>
                <th>Last success</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              ${grid.rows.map((row) => renderRow(id, grid, row))}
            </tbody>
          </table>`
    }
    ${renderPaging(grid, options)}
  </section>`;
}

function renderRow(definitionId: string, grid: DefinitionGrid, row: GridRow): SafeHtml {
  const itemsUrl = `/api/items?${new URLSearchParams({ definition: definitionId, target: row.workloadId }).toString()}`;
  return html`<tr
    class="workload"
    data-workload-id="${row.workloadId}"
    data-name="${row.name || row.workloadId}"
    data-state="${row.state}"
    data-streak="${row.failureStreak}"
  >
    <td>${stateBadge(row.state)}</td>
    <td class="num">${row.failureStreak}</td>
    <td>
      <a class="items" href="${itemsUrl}" title="its items in the definition's runs"
        >${row.name || row.workloadId}</a
      ><br /><span class="muted">${row.workloadId}</span>
    </td>
    <td class="marks">
      ${row.marks.map((mark, index) => {
        const run = grid.runs[index];
        const label = `${run?.runId ?? ''}: ${MARKS[mark].words}`;
        return html`<a
          class="mark mark-${mark}"
          href="/api/runs/${encodeURIComponent(run?.runId ?? '')}"
          data-status="${mark}"
          data-run-id="${run?.runId ?? ''}"
          title="${label}"
          aria-label="${label}"
          >${MARKS[mark].glyph}</a
        >`;
      })}
    </td>
    <td class="nowrap">
      ${row.lastSuccessAt === null ? html`<span class="muted">never</span>` : formatTime(row.lastSuccessAt)}
    </td>
    <td class="reason">${row.reason ?? ''}</td>
  </tr>`;
}

function stateBadge(state: GridRow['state']): SafeHtml {
  // The states read as the item statuses they come from.
  const like: Record<GridRow['state'], string> = {
    protected: 'succeeded',
    failing: 'failed',
    stale: 'canceled',
    skipped: 'skipped',
    never: 'queued',
  };
  return html`<span class="badge status-${like[state]}">${state}</span>`;
}

function renderPaging(grid: DefinitionGrid, options: GridOptions): SafeHtml | string {
  const id = grid.coverage.definitionId;
  const end = grid.offset + grid.rows.length;
  if (grid.offset === 0 && end >= grid.total) return '';
  const next = Math.min(options.rows, grid.total - end);
  return html`<p class="paging">
    Workloads ${grid.offset + 1}–${end} of ${grid.total}.
    ${
      grid.offset > 0
        ? html`<a
            href="${gridUrl(id, { ...options, offset: Math.max(0, grid.offset - options.rows) })}"
            >previous ${options.rows}</a
          >`
        : ''
    }
    ${next > 0 ? html`<a href="${gridUrl(id, { ...options, offset: end })}">next ${next}</a>` : ''}
  </p>`;
}

/** The view of one definition, sorted and paged as given. */
function gridUrl(definitionId: string, options: GridOptions): string {
  const query = new URLSearchParams({ definition: definitionId, sort: options.sort });
  if (options.offset > 0) query.set('offset', String(options.offset));
  query.set('rows', String(options.rows));
  return `/coverage?${query.toString()}`;
}
