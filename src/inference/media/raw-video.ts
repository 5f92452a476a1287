/**
 * Raw video frames as the encoder takes them on its stdin: `rgba` (4 bytes a pixel, what the canvas draws) or
 * `yuv420p` (planar Y, then U and V at half size each way: 1.5 bytes a pixel, what H.264 stores, so ffmpeg
 * converts nothing).
 */
export type RawVideoFormat = 'rgba' | 'yuv420p';

/** Bytes of one `width × height` frame in yuv420p: a full-size Y plane, then U and V at half size each way. */
export function yuv420Bytes(width: number, height: number): number {
  return width * height + 2 * (width >> 1) * (height >> 1);
}

/** Bytes of one `width × height` frame in `format`. */
export function rawFrameBytes(format: RawVideoFormat, width: number, height: number): number {
  return format === 'rgba' ? width * height * 4 : yuv420Bytes(width, height);
}
