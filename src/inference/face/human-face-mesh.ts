/**
 * MediaPipe BlazeFace (back-camera model) + Face Mesh, as shipped and run by `@vladmandic/human` on the
 * TensorFlow.js WASM backend: the weights are the `models/blazeface.*` and `models/facemesh.*` files inside the
 * npm package and the `.wasm` binaries are inside `@tensorflow/tfjs-backend-wasm`, so nothing is downloaded and
 * nothing native is built. One instance per thread, loaded on first use and kept; its runs are synchronous CPU
 * work, so it belongs in a child process.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Config, FaceResult, Human } from '@vladmandic/human';

/** One face as the mesh model found it, in the pixels of the image it was given. */
export interface MeshFace {
  /** The 468 mesh vertices, `[x, y]`. */
  mesh: [number, number][];
  /** Human's overall face score in [0, 1] (detector and mesh confidence). */
  score: number;
  /** The mesh model's own confidence, in [0, 1]. */
  faceScore: number;
}

/** Names the model in {@link FaceLandmarks.model}. */
export const FACE_MESH_MODEL = 'mediapipe-blazeface+facemesh@human-3.3.6';

const require = createRequire(import.meta.url);

/**
 * Human's Node build for the WASM backend. The package's `exports` map has no entry for it (its keys lack the
 * leading `./`), so it is loaded by path next to the package's main file.
 */
function humanPackageDir(): string {
  return join(dirname(require.resolve('@vladmandic/human')), '..');
}

/** Human's settings: only the face detector and mesh run; no caching between calls (each call is a new photo). */
function humanConfig(): Partial<Config> {
  const config = {
    backend: 'wasm',
    wasmPath: `${dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`,
    modelBasePath: `${pathToFileURL(join(humanPackageDir(), 'models')).href}/`,
    debug: false,
    cacheModels: false,
    cacheSensitivity: 0,
    warmup: 'none',
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { modelPath: 'blazeface.json', rotation: true, maxDetected: 20, skipFrames: 0, skipTime: 0, minConfidence: 0.2, iouThreshold: 0.1, return: false },
      mesh: { enabled: true, modelPath: 'facemesh.json' },
      iris: { enabled: false },
      attention: { enabled: false },
      emotion: { enabled: false },
      description: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      gear: { enabled: false },
      ssrnet: { enabled: false },
      mobilefacenet: { enabled: false },
      insightface: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  };
  // Human deep-merges a partial configuration onto its defaults; its type is partial only at the top level.
  return config as unknown as Partial<Config>;
}

let loading: Promise<Human> | undefined;

/** This thread's Human instance, its backend set and both models loaded (once). */
export function faceMeshModel(): Promise<Human> {
  loading ??= loadHuman().catch((error: unknown) => {
    loading = undefined; // a later call tries again
    throw error;
  });
  return loading;
}

async function loadHuman(): Promise<Human> {
  const human = await withoutAddedProcessHandlers(async () => {
    const { Human: HumanClass } = require(join(humanPackageDir(), 'dist/human.node-wasm.js')) as typeof import('@vladmandic/human');
    const instance = new HumanClass(humanConfig());
    await withFileFetch(() => instance.load());
    return instance;
  });
  for (const name of ['blazeface', 'facemesh']) {
    if (!human.models.loaded().includes(name)) throw new Error(`the face model ${name} did not load from ${humanPackageDir()}`);
  }
  return human;
}

/** Process events the WASM backend's Emscripten runtime listens to, rethrowing what it is given. */
const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'] as const;

/**
 * Runs `load` and then removes the `uncaughtException` / `unhandledRejection` listeners it added: the WASM
 * backend's Emscripten runtime installs listeners that rethrow, which on the host's thread (the detector's `'main'`
 * mode, or a bundled package without the worker module) would turn any unhandled rejection of the host into a crash.
 */
async function withoutAddedProcessHandlers<T>(load: () => Promise<T>): Promise<T> {
  // Typed loosely: the overloads of `listeners` take one literal event name at a time.
  const listenersOf = (event: string) => (process.listeners as (name: string) => ((...args: unknown[]) => void)[])(event);
  const before = new Map(PROCESS_EVENTS.map((event) => [event, new Set(listenersOf(event))]));
  try {
    return await load();
  } finally {
    for (const event of PROCESS_EVENTS) {
      for (const listener of listenersOf(event)) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
      }
    }
  }
}

/**
 * Runs `load` with `fetch` answering `file:` URLs from the disk: Human fetches its model files with the global
 * `fetch`, which in Node reads no `file:` URLs. Only during the load, and only on this (worker) thread.
 */
async function withFileFetch<T>(load: () => Promise<T>): Promise<T> {
  const networkFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith('file:')) return networkFetch(input, init);
    return new Response(await readFile(fileURLToPath(url)));
  };
  try {
    return await load();
  } finally {
    globalThis.fetch = networkFetch;
  }
}

/** Every face in an RGBA image of `width × height` pixels, as Human's detector and mesh see it. */
export async function findFaceMeshes(pixels: Uint8ClampedArray, width: number, height: number): Promise<MeshFace[]> {
  const human = await faceMeshModel();
  const { tf } = human;
  // The RGB channels packed here rather than sliced from an RGBA tensor: the WASM backend slices an inner dimension
  // in JavaScript, ~25 ns an element (7 ms for the tracker's 320 × 320 square, where this loop takes under 1 ms).
  const input = tf.tensor4d(rgbOf(pixels, width * height), [1, height, width, 3], 'int32');
  try {
    const result = await human.detect(input);
    if (result.error) throw new Error(`face detection failed: ${result.error}`);
    return result.face.map((face: FaceResult) => ({ mesh: face.mesh.map(([x, y]): [number, number] => [x, y]), score: face.score, faceScore: face.faceScore }));
  } finally {
    tf.dispose(input);
  }
}

/** The red, green and blue bytes of `count` RGBA pixels, as the int32 values of an RGB tensor. */
function rgbOf(rgba: Uint8ClampedArray, count: number): Int32Array {
  const rgb = new Int32Array(count * 3);
  for (let i = 0, o = 0; o < rgb.length; i += 4, o += 3) {
    rgb[o] = rgba[i]!;
    rgb[o + 1] = rgba[i + 1]!;
    rgb[o + 2] = rgba[i + 2]!;
  }
  return rgb;
}
