/**
 * The named variables of this process's environment, those that are set. For a command that
 * must not be swayed by the rest of a user's `PAW_*` settings (`paw demo` builds its own
 * configuration and honours only a few variables); like the settings loader, it lives here
 * because only `src/config/` reads `process.env`.
 */
export function selectEnvironment(names: readonly string[]): Record<string, string> {
  const selected: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined && value !== '') selected[name] = value;
  }
  return selected;
}
