/**
 * A six-field cron expression (seconds first) that fires every `seconds` seconds, on the dot of
 * a whole minute's division: `*\/30 * * * * *` for 30, `0 *\/2 * * * *` for 120. Only periods
 * that divide a minute or an hour evenly can be written so; anything else throws.
 */
export function everySecondsCron(seconds: number): string {
  if (Number.isInteger(seconds) && seconds >= 1 && seconds < 60 && 60 % seconds === 0)
    return `*/${seconds} * * * * *`;
  const minutes = seconds / 60;
  if (Number.isInteger(minutes) && minutes >= 1 && minutes <= 60 && 60 % minutes === 0)
    return `0 */${minutes} * * * *`;
  throw new Error(
    `--every ${seconds}: a schedule fires every N seconds for N dividing 60 (1 .. 30), or every M minutes for M dividing 60 (60, 120, 180, … 3600 seconds)`,
  );
}
