/**
 * `virtual-anchor/client`: a typed client of the virtual-anchor HTTP API for browsers and Node (global fetch).
 *
 * @packageDocumentation
 */
export { VirtualAnchorClient, JobCollection, type ClientOptions, type CallOptions, type CreateOptions, type ListOptions, type JobListOptions } from './client.js';
export { VirtualAnchorApiError, VirtualAnchorNetworkError } from './errors.js';
export { DEFAULT_BACKOFF, isFinal, waitForFinal, type Backoff, type WaitOptions } from './wait.js';
export type * from './types.js';
