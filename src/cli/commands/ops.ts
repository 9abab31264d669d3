import { Command } from 'commander';
import { UsageError } from '../../shared/usage-error.js';
import { isOpsUserName } from '../../ops/auth/credential-lines.js';
import { hashPassword } from '../../ops/auth/password-hash.js';
import { examples } from '../option-parsers.js';

/** `paw ops hash-password`: a line for the ops server's users file. */
export function opsCommand(): Command {
  const ops = new Command('ops').description("the ops server's own tools (its users file)");
  ops
    .command('hash-password')
    .description(
      'read a password on standard input and print the users-file line for it (http.auth.usersFile)',
    )
    .requiredOption('--user <name>', 'the user name')
    .addHelpText(
      'after',
      '\nThe password is read from standard input (one line), never from the command line, so it\n' +
        'stays out of the shell history and `ps`. Append the printed line to the users file.\n' +
        examples('printf \'%s\' "$PASSWORD" | paw ops hash-password --user alice >> ops-users'),
    )
    .action(async (options: { user: string }) => {
      if (!isOpsUserName(options.user)) {
        throw new UsageError('--user: a name without spaces or ":"');
      }
      const password = (await readStandardInput()).replace(/\r?\n$/, '');
      if (password.length < 12) {
        throw new UsageError('the password on standard input is shorter than 12 characters');
      }
      process.stdout.write(`${options.user}:${await hashPassword(password)}\n`);
    });
  return ops;
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
