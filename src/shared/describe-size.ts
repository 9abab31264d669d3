/** `1 MiB`, `64 KiB`, `5.0 MiB`, `812 bytes`. */
export function describeSize(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes >= MiB)
    return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= 1024)
    return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
