import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { ExitCode } from './exit-codes.js';
import { isUsageError } from '../shared/usage-error.js';
import { printable } from '../shared/printable.js';

/**
 * The `paw` command. Every failure ends here: usage and configuration errors exit 2, everything
 * else exits 1, and the message (never a stack, never a secret) goes to standard error.
 */
async function main(argv: readonly string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed its message (or the help text).
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    // A message may repeat what the platform or Redis said.
    process.stderr.write(`paw: ${printable(message, { keepLineFeeds: true })}\n`);
    return isUsageError(error) ? ExitCode.usage : ExitCode.failure;
  }
}

// `paw workloads list | head` closes the pipe early: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? ExitCode.ok);
  throw error;
});

process.exitCode = await main(process.argv);
