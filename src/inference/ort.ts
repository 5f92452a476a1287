/**
 * The one place that loads onnxruntime-node.
 *
 * The package pins onnxruntime-node 1.16.3: it is the last release without an install script (every later release
 * downloads CUDA libraries from NuGet when installed on Linux x64, which fails on closed networks and is never
 * needed here, as the models run on the CPU). That release ships no type declarations of its own; its entry point
 * re-exports the API of onnxruntime-common of the same version, whose declarations are used here.
 */
import { createRequire } from 'node:module';
import type * as OrtApi from 'onnxruntime-common';

export type { InferenceSession, Tensor } from 'onnxruntime-common';

const require = createRequire(import.meta.url);

let api: typeof OrtApi | undefined;

/**
 * onnxruntime-node's API (sessions, tensors), typed by onnxruntime-common. The native addon is loaded on the first
 * call, not when a module that may use it is imported: the host's process imports the engines' modules but runs
 * their models in child processes, and so never loads it.
 */
export function ort(): typeof OrtApi {
  return (api ??= require('onnxruntime-node') as typeof OrtApi);
}
