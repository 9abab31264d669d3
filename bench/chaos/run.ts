import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ChaosVerdict } from './chaos-scenario.js';
import { SCENARIOS } from './scenarios.js';

/**
 * `npm run chaos -- [--quick] [--only 1,3|slug] [--json FILE]`: runs the chaos scenarios one
 * after another and prints one verdict line each, then a summary. Exit 0 when every scenario
 * passed, 1 when one failed, 2 on bad usage.
 */
const USAGE = `usage: npm run chaos -- [--quick] [--only <ids or slugs>] [--json FILE]

Runs each chaos scenario against real processes, the simulator and a real Redis, and prints a
verdict line per scenario:  chaos <id> <slug>: PASS|FAIL  <what was checked and found>

  --quick        the small form that CI runs (.ci/run)
  --only LIST    comma-separated scenario ids or slugs (default: all)
  --json FILE    also write the verdicts and figures as JSON
  --help         this text

CHAOS_SEED=<n> replays a run's random choices (kill times and victims); each scenario that
draws at random prints its seed.

Exit codes: 0 every scenario passed, 1 at least one failed, 2 bad usage.
Scenarios:
${SCENARIOS.map((s) => `  ${String(s.id).padStart(2)}  ${s.slug}`).join('\n')}
`;

interface Options {
  quick: boolean;
  only: string[] | undefined;
  json: string | undefined;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    quick: values.quick,
    only: values.only?.split(',').map((part) => part.trim()),
    json: values.json,
  };
}

interface VerdictRecord extends ChaosVerdict {
  id: number;
  slug: string;
  title: string;
  seconds: number;
}

async function main(): Promise<number> {
  let options: Options | undefined;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  const only = options.only;
  const chosen =
    only === undefined
      ? SCENARIOS
      : SCENARIOS.filter((s) => only.includes(String(s.id)) || only.includes(s.slug));
  const unknown = (only ?? []).filter(
    (want) => !SCENARIOS.some((s) => String(s.id) === want || s.slug === want),
  );
  if (unknown.length > 0 || chosen.length === 0) {
    process.stderr.write(
      `unknown scenario(s): ${unknown.join(', ') || '(none chosen)'}\n\n${USAGE}`,
    );
    return 2;
  }

  const form = options.quick ? 'quick' : 'full';
  process.stderr.write(
    `chaos: ${chosen.length} scenario(s), ${form} form, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}\n`,
  );
  const records: VerdictRecord[] = [];
  for (const entry of chosen) {
    const scenario = await entry.load();
    const started = performance.now();
    const prefix = `chaos ${scenario.id} ${scenario.slug}`;
    process.stderr.write(`${prefix}: ${scenario.title}\n`);
    let verdict: ChaosVerdict;
    try {
      verdict = await scenario.run({
        quick: options.quick,
        progress: (line) => process.stderr.write(`  ${prefix}: ${line}\n`),
      });
    } catch (error) {
      // A scenario that throws has not shown that paw survived: that is a failure, with the reason.
      verdict = {
        passed: false,
        verdict: `the scenario itself failed: ${(error as Error).message}`,
      };
    }
    const seconds = (performance.now() - started) / 1000;
    records.push({
      id: scenario.id,
      slug: scenario.slug,
      title: scenario.title,
      seconds,
      ...verdict,
    });
    process.stdout.write(
      `${prefix}: ${verdict.passed ? 'PASS' : 'FAIL'}  ${verdict.verdict}  (${seconds.toFixed(1)} s)\n`,
    );
  }
  const failed = records.filter((r) => !r.passed).length;
  process.stdout.write(`chaos: ${records.length - failed} passed, ${failed} failed (${form})\n`);
  if (options.json !== undefined) {
    await writeFile(
      options.json,
      `${JSON.stringify({ form, loadAverage: loadavg(), scenarios: records }, null, 2)}\n`,
    );
  }
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main();
