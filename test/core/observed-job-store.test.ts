/**
 * The metrics wrapper of the job store is a JobStore like any other: it passes the JobStore contract (attempt-guarded
 * writes included) around the memory store, and reports each finished run's duration from the record.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JobKind, JobStatus } from '../../src/domain/job.js';
import { ObservedJobStore } from '../../src/core/metrics/observed-job-store.js';
import { noMetrics, type MetricsRecorder } from '../../src/core/metrics/metrics-recorder.js';
import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { jobStoreSuite } from '../../src/testing/job-store-suite.js';
import { makeJob } from '../../src/testing/job-fixtures.js';

jobStoreSuite('ObservedJobStore around MemoryJobStore', {
  describe,
  it,
  create: async (settings) => new ObservedJobStore(new MemoryJobStore(settings), noMetrics),
  expect: ['recordExpiry'],
});

describe('ObservedJobStore durations', () => {
  it('measures a run from the record, also when another store instance took the job', async () => {
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    const inner = new MemoryJobStore({ now: () => new Date(clock) });
    const finished: { kind: JobKind; status: JobStatus; seconds: number }[] = [];
    const metrics: MetricsRecorder = { ...noMetrics, jobFinished: (kind, status, seconds) => finished.push({ kind, status, seconds }) };
    const job = makeJob();
    await inner.create(job);
    // Another process's store moves the job to ongoing; this one only sees the end.
    await inner.transition(job.uid, ['pending'], 'ongoing');
    clock += 7_500;
    await new ObservedJobStore(inner, metrics).transition(job.uid, ['ongoing'], 'completed');
    assert.deepEqual(finished, [{ kind: job.kind, status: 'completed', seconds: 7.5 }]);
  });
});
