/**
 * The filter that makes every timestamp after decoding a count of samples (`N` samples consumed so far, divided by
 * the sample rate). Whatever a container says about time (a header duration, block timestamps that stand still or
 * jump), a duration cap behind it and ffmpeg's reported output time then measure audio that was really decoded.
 */
export const SAMPLE_CLOCK_FILTER = 'asetpts=N/SR/TB';

/** True for a usable cap in seconds. */
function isCap(maxSec: number | undefined): maxSec is number {
  return maxSec !== undefined && Number.isFinite(maxSec) && maxSec >= 0;
}

/**
 * ffmpeg output options (for an output holding one audio stream) that stop after `maxSec` seconds of decoded
 * samples; ffmpeg then stops reading the input too. None without a cap.
 */
export function decodedDurationCap(maxSec: number | undefined): string[] {
  return isCap(maxSec) ? ['-af', SAMPLE_CLOCK_FILTER, '-t', maxSec.toFixed(6)] : [];
}

/**
 * An audio filter chain keeping at most `maxSec` seconds of decoded samples, for an output that also holds other
 * streams (where `-t` would cut them too). `undefined` without a cap.
 */
export function decodedDurationTrim(maxSec: number | undefined): string | undefined {
  return isCap(maxSec) ? `${SAMPLE_CLOCK_FILTER},atrim=end=${maxSec.toFixed(6)}` : undefined;
}
