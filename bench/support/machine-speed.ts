import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * A fixed piece of JavaScript of the kind paw runs (objects, JSON, strings, arithmetic), run in
 * a fresh process so that no JIT state carries over; it prints its own CPU time in ms.
 */
const LOOP = `
const started = process.cpuUsage();
let sum = 0;
const kept = [];
for (let i = 0; i < 400000; i++) {
  const record = { itemKey: 'vm-' + (i % 5000), status: i % 3 ? 'running' : 'succeeded', dueAt: i * 7 };
  const text = JSON.stringify(record);
  sum += JSON.parse(text).dueAt % 13;
  if (i % 100 === 0) kept.push(text);
}
const used = process.cpuUsage(started);
// Using the results keeps the loop's work from being optimised away.
if (sum < 0 || kept.length === 0) throw new Error('unreachable');
process.stdout.write(String((used.user + used.system) / 1000));
`;

/** Readings taken each time; their median is reported. */
const READINGS = 3;

/**
 * How fast this machine is right now: the median CPU time, in ms, of {@link LOOP} over three
 * fresh processes (lower is faster). A shared virtual machine's speed moves: here a plain
 * arithmetic loop took from 639 to 1,075 ms within a minute (2026-11-26), so two nights' CPU
 * figures compare only at similar readings. The nightly report gives one before and one after
 * each night.
 */
export async function machineSpeedMs(): Promise<number> {
  const readings: number[] = [];
  for (let index = 0; index < READINGS; index++) {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', LOOP]);
    readings.push(Number(stdout));
  }
  readings.sort((a, b) => a - b);
  return readings[Math.floor(READINGS / 2)] ?? NaN;
}
