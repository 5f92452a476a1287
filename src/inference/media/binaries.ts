import { constants } from 'node:fs';
import { access, chmod, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { MediaBinaryError, type MediaTool } from './errors.js';

/** Where a binary path came from, in order of precedence. */
export type MediaBinarySource = 'option' | 'env' | 'system' | 'package';

/** Paths of the ffmpeg and ffprobe executables every media function receives. */
export interface MediaBinaries {
  ffmpegPath: string;
  ffprobePath: string;
  /** Where each path was found (they may differ, e.g. ffmpeg from the system, ffprobe from the package). */
  source: { ffmpeg: MediaBinarySource; ffprobe: MediaBinarySource };
}

/** Options of {@link resolveMediaBinaries}. */
export interface ResolveMediaBinariesOptions {
  /** Explicit ffmpeg path; wins over everything else and must be executable. */
  ffmpegPath?: string;
  /** Explicit ffprobe path; wins over everything else and must be executable. */
  ffprobePath?: string;
  /** Environment to read `FFMPEG_PATH`, `FFPROBE_PATH` and `PATH` from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

const ENV_NAMES: Record<MediaTool, string> = { ffmpeg: 'FFMPEG_PATH', ffprobe: 'FFPROBE_PATH' };

/**
 * Finds ffmpeg and ffprobe: explicit option > `FFMPEG_PATH`/`FFPROBE_PATH` > an executable on `PATH`
 * > the `@ffmpeg-installer/ffmpeg` / `@ffprobe-installer/ffprobe` packages (imported lazily, made executable
 * when their postinstall chmod did not run).
 *
 * @throws {MediaBinaryError} when an explicit or env path is not executable, or nothing is found.
 */
export async function resolveMediaBinaries(options: ResolveMediaBinariesOptions = {}): Promise<MediaBinaries> {
  const env = options.env ?? process.env;
  const [ffmpeg, ffprobe] = await Promise.all([
    resolveBinary('ffmpeg', options.ffmpegPath, env),
    resolveBinary('ffprobe', options.ffprobePath, env),
  ]);
  return {
    ffmpegPath: ffmpeg.path,
    ffprobePath: ffprobe.path,
    source: { ffmpeg: ffmpeg.source, ffprobe: ffprobe.source },
  };
}

interface Found {
  path: string;
  source: MediaBinarySource;
}

async function resolveBinary(
  tool: MediaTool,
  explicit: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Found> {
  if (explicit) return { path: await requireExecutable(tool, explicit, 'the ffmpeg options'), source: 'option' };
  const fromEnv = env[ENV_NAMES[tool]];
  if (fromEnv) return { path: await requireExecutable(tool, fromEnv, ENV_NAMES[tool]), source: 'env' };
  const onPath = await findOnPath(tool, env.PATH);
  if (onPath) return { path: onPath, source: 'system' };
  const packaged = await packagedBinary(tool);
  if (packaged) return { path: packaged, source: 'package' };
  throw new MediaBinaryError(
    tool,
    `${tool} not found: set ${ENV_NAMES[tool]}, install ${tool} on PATH, or install @${tool}-installer/${tool}`,
  );
}

async function requireExecutable(tool: MediaTool, path: string, origin: string): Promise<string> {
  if (await isExecutableFile(path)) return path;
  throw new MediaBinaryError(tool, `${tool} path from ${origin} is not an executable file: ${path}`);
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findOnPath(tool: MediaTool, searchPath: string | undefined): Promise<string | undefined> {
  const dirs = (searchPath ?? '').split(delimiter).filter((dir) => dir !== '');
  const name = process.platform === 'win32' ? `${tool}.exe` : tool;
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** The installer package's binary, chmod-ed executable if needed; `undefined` when unavailable. */
async function packagedBinary(tool: MediaTool): Promise<string | undefined> {
  let path: string;
  try {
    const mod = tool === 'ffmpeg' ? await import('@ffmpeg-installer/ffmpeg') : await import('@ffprobe-installer/ffprobe');
    path = mod.default.path;
  } catch {
    // Not installed, unsupported platform, or the platform package lacks the binary (the index throws).
    return undefined;
  }
  if (await isExecutableFile(path)) return path;
  try {
    const { mode } = await stat(path);
    await chmod(path, mode | 0o755);
  } catch {
    return undefined;
  }
  return (await isExecutableFile(path)) ? path : undefined;
}
