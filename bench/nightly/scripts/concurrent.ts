import { runScript } from './script-run.js';

const AT_A_TIME = 10;

// The better script: ten snapshots at a time, each polled every 5 s until it ends; as one ends,
// the next workload starts.
await runScript(async (api, workloadIds) => {
  const outcomes: string[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < workloadIds.length) {
      const workloadId = workloadIds[next++] ?? '';
      outcomes.push(await api.snapshotAndWait(workloadId));
      if (outcomes.length % 50 === 0)
        process.stderr.write(`concurrent: ${outcomes.length}/${workloadIds.length}\n`);
    }
  };
  await Promise.all(Array.from({ length: AT_A_TIME }, lane));
  return outcomes;
});
