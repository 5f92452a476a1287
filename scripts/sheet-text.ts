import type { Canvas } from '@napi-rs/canvas';

/** `text` broken into lines no wider than `width` in `ctx`'s font (the contact sheets' captions). */
export function wrapText(ctx: ReturnType<Canvas['getContext']>, text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (ctx.measureText(next).width > width && line) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  lines.push(line);
  return lines;
}
