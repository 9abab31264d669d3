import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SLOW_MS, SimulatorStallProbe } from './simulator-stalls.js';

/** A server in a process of its own, answering every request at once, as `/_sim/faults` does. */
async function answeringServer() {
  const child = spawn(process.execPath, [
    '-e',
    "const s = require('node:http').createServer((q, r) => r.end('{}'));" +
      "s.listen(0, '127.0.0.1', () => console.log(s.address().port));",
  ]);
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { child, baseUrl: `http://127.0.0.1:${chunk.toString().trim()}` };
}

describe('SimulatorStallProbe', () => {
  it('sees a process that stops answering for 1.5 s', async () => {
    const { child, baseUrl } = await answeringServer();
    try {
      const probe = new SimulatorStallProbe(baseUrl, 50);
      await sleep(300);
      child.kill('SIGSTOP');
      await sleep(1_500);
      child.kill('SIGCONT');
      await sleep(300);
      const stalls = await probe.stop();
      // A probe sent during the stop waits for the rest of it: most of it, unless this process
      // itself was held up (a loaded machine), and then still more than half.
      expect(stalls.longestAnswerMs).toBeGreaterThan(750);
      expect(stalls.longestAnswerMs).toBeGreaterThan(SLOW_MS);
      expect(stalls.slowAnswers).toBeGreaterThanOrEqual(1);
      expect(stalls.probes).toBeGreaterThan(1);
      // Stopping twice gives the same figures.
      expect(await probe.stop()).toBe(stalls);
    } finally {
      child.kill('SIGCONT');
      child.kill();
    }
  });
});
