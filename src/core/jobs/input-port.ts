import type { BlobRef } from '../../domain/job.js';
import type { MediaProbe } from '../../inference/media/probe.js';

/** A request to turn a submitted URL into a local, probed file. */
export interface InputRequest {
  url: string;
  owner: string;
  /** `video`: a person's clip (a moving picture; video avatars check its length and face). */
  kind: 'audio' | 'image' | 'video';
  /** Request field the URL came from, for error details (e.g. `audioUrl`). */
  field: string;
  /** Containers accepted (decided by probing), e.g. `['mp3','wav','mp4','mov']`; any when absent. */
  allowedContainers?: string[];
  /** Longest accepted duration in seconds, of what the audio decodes to (a header's claim does not count). */
  maxDurationSec?: number;
  /** The option that sets `maxDurationSec`, named in the `too_long` message. */
  maxDurationOption?: string;
  /**
   * The request's `signal` (its client has gone): a download, or a check waiting for its turn or running, stops and
   * the call rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** A resolved input. */
export interface ResolvedInput {
  blob: BlobRef;
  /** Duration in seconds the audio decoded to, at most `maxDurationSec` (0 for images). */
  durationSec: number;
  /** True when the service created the blob (a download); false for the caller's own upload. */
  scratch: boolean;
}

/** A resolved input with what its check's probe found (the built-in port's answer), so nothing probes it again. */
export interface ProbedInput extends ResolvedInput {
  probe: MediaProbe;
}

/** Resolves submitted URLs; throws an `ApiError` (400, or 413 when too large) for bad input. */
export interface InputPort<Resolved extends ResolvedInput = ResolvedInput> {
  resolve(request: InputRequest): Promise<Resolved>;
}
