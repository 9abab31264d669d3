import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PawMetrics } from '../../src/ops/metrics/paw-metrics.js';
import { systemTool } from '../testkit/system-tool.js';

const TOOL = systemTool(
  'promtool',
  'Debian: apt-get install -y --no-install-recommends prometheus',
  'the Prometheus rules tests',
);

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(`${ROOT}${file}`, 'utf8');

/** The names paw's /metrics exposes (histograms with their _bucket, _sum and _count). */
async function exposedNames(): Promise<Set<string>> {
  const metrics = new PawMetrics({ version: 'test', role: 'start', processMetrics: false });
  const names = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (metric.type.toString() === 'histogram') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
    }
  }
  return names;
}

function pawNamesIn(text: string): string[] {
  return [...new Set(text.match(/\bpaw_[a-z_]+/g) ?? [])];
}

/** Anchors of docs/operations.md's headings, as GitHub makes them. */
function anchorsOf(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#+ (.+)$/gm)].map((match) =>
      (match[1] ?? '')
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe.skipIf(!TOOL.available)('Prometheus rules and the Grafana dashboard', () => {
  it('pass promtool check rules and promtool test rules', async () => {
    const check = await run('promtool', ['check', 'rules', 'deploy/prometheus/paw-rules.yml'], {
      cwd: ROOT,
    });
    expect(check.stdout).toMatch(/SUCCESS: 15 rules found/);
    const test = await run('promtool', ['test', 'rules', 'deploy/prometheus/paw-rules.test.yml'], {
      cwd: ROOT,
    });
    expect(test.stdout).toMatch(/SUCCESS/);
  });

  it('name only metrics paw exposes, and each alert has a runbook in docs/operations.md', async () => {
    const exposed = await exposedNames();
    const rules = read('deploy/prometheus/paw-rules.yml');
    const dashboard = read('deploy/grafana/paw-dashboard.json');
    expect(pawNamesIn(rules).length).toBeGreaterThan(5);
    expect(pawNamesIn(rules).filter((name) => !exposed.has(name))).toEqual([]);
    expect(pawNamesIn(dashboard).filter((name) => !exposed.has(name))).toEqual([]);

    const parsed = parse(rules) as {
      groups: { rules: { alert: string; annotations: { runbook: string } }[] }[];
    };
    const anchors = anchorsOf(read('docs/operations.md'));
    for (const rule of parsed.groups.flatMap((group) => group.rules)) {
      expect(rule.annotations.runbook, rule.alert).toBe(
        `docs/operations.md#${rule.alert.toLowerCase()}`,
      );
      expect(anchors, `a runbook heading for ${rule.alert}`).toContain(rule.alert.toLowerCase());
    }
    const panels = (JSON.parse(dashboard) as { panels: { targets: { expr: string }[] }[] }).panels;
    expect(panels.length).toBeGreaterThan(5);
    for (const panel of panels) expect(panel.targets.length).toBeGreaterThan(0);
  });
});
