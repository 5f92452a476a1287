/** The words of limit messages: sizes and lengths as a person reads them, and the option named. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptedAtMost, formatBytes, formatSeconds, tooLargeText } from '../../src/core/input/limit-text.js';

describe('limit messages', () => {
  it('gives sizes in binary units, in bytes too where the unit rounds', () => {
    assert.equal(formatBytes(200 * 2 ** 20), '200 MiB');
    assert.equal(formatBytes(1.5 * 2 ** 10), '1.5 KiB');
    assert.equal(formatBytes(2 ** 30), '1 GiB');
    assert.equal(formatBytes(1000), '1000 bytes');
    assert.equal(formatBytes(10_000), '9.8 KiB (10000 bytes)');
  });

  it('gives lengths in seconds, with whole minutes from two on', () => {
    assert.equal(formatSeconds(300), '300 s (5 min)');
    assert.equal(formatSeconds(1200), '1200 s (20 min)');
    assert.equal(formatSeconds(301.53), '301.5 s');
    assert.equal(formatSeconds(60), '60 s');
  });

  it('names the option that sets the limit', () => {
    assert.equal(acceptedAtMost('300 s (5 min)', 'limits.maxAvatarAudioSec'), 'at most 300 s (5 min) is accepted (limits.maxAvatarAudioSec)');
    assert.equal(tooLargeText('the file', undefined, 20 * 2 ** 20, 'limits.maxPhotoBytes'), 'the file is larger than 20 MiB; at most 20 MiB is accepted (limits.maxPhotoBytes)');
    assert.equal(tooLargeText('the file', 21 * 2 ** 20, 20 * 2 ** 20), 'the file is 21 MiB; at most 20 MiB is accepted');
  });
});
