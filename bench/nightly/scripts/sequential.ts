import { runScript } from './script-run.js';

// The script people write today: trigger one workload's snapshot, poll its job every 5 s until
// it ends, then the next workload.
await runScript(async (api, workloadIds) => {
  const outcomes: string[] = [];
  for (const [index, workloadId] of workloadIds.entries()) {
    outcomes.push(await api.snapshotAndWait(workloadId));
    process.stderr.write(`sequential: ${index + 1}/${workloadIds.length}\n`);
  }
  return outcomes;
});
