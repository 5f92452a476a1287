/**
 * The words of the messages that refuse something over a limit: the size or length measured and the limit, in the
 * units a person reads (MiB, seconds and minutes), and the option that sets the limit, so that whoever runs the
 * service knows what to change: `the file is larger than 200 MiB; at most 200 MiB is accepted (limits.maxDownloadBytes)`.
 */

const BYTE_UNITS = [
  ['GiB', 2 ** 30],
  ['MiB', 2 ** 20],
  ['KiB', 2 ** 10],
] as const;

/** `200 MiB`, `1.5 KiB`, `512 bytes`; a size its unit does not show to a tenth also in bytes: `0.9 MiB (1000000 bytes)`. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of BYTE_UNITS) {
    if (bytes >= size) {
      const shown = +(bytes / size).toFixed(1);
      return shown * size === bytes ? `${shown} ${unit}` : `${shown} ${unit} (${bytes} bytes)`;
    }
  }
  return `${bytes} bytes`;
}

/** `300 s (5 min)`, `1200 s (20 min)`, `12.4 s`: seconds to a tenth, whole minutes from two on. */
export function formatSeconds(seconds: number): string {
  const shown = +seconds.toFixed(1);
  return shown >= 120 && shown % 60 === 0 ? `${shown} s (${shown / 60} min)` : `${shown} s`;
}

/** `at most 200 MiB is accepted (limits.maxUploadBytes)`: the limit, and the option that sets it when there is one. */
export function acceptedAtMost(limit: string, option?: string): string {
  return `at most ${limit} is accepted${option ? ` (${option})` : ''}`;
}

/**
 * `the file is 250 MiB; at most 200 MiB is accepted (limits.maxDownloadBytes)`, or `… is larger than 200 MiB; …` when
 * the size is not known (the bytes were cut off at the limit).
 */
export function tooLargeText(what: string, size: number | undefined, maxBytes: number, option?: string): string {
  const measured = size === undefined ? `larger than ${formatBytes(maxBytes)}` : formatBytes(size);
  return `${what} is ${measured}; ${acceptedAtMost(formatBytes(maxBytes), option)}`;
}
