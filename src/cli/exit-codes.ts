/**
 * paw's exit codes, the same for every command (documented in the README):
 * 0 success; 1 the platform or a job failed; 2 bad usage or configuration.
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
