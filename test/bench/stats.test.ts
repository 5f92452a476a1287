import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { median, medianInterval, verdictAtMost } from '../../bench/lib/stats.js';

describe('bench statistics', () => {
  it('takes the median of odd and even counts', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });

  it("gives the median's interval from the order statistics a binomial table gives", () => {
    const nine = [9, 1, 8, 2, 7, 3, 6, 4, 5];
    // n = 9: x(2)..x(8) covers 1 − 2·(1 + 9)/512 = 96.1 %; x(3)..x(7) only 82 %.
    const ofNine = medianInterval(nine);
    assert.deepEqual([ofNine.low, ofNine.high], [2, 8]);
    assert.ok(Math.abs(ofNine.level - (1 - 20 / 512)) < 1e-12);
    // n = 25: x(8)..x(18) covers 95.7 %.
    const twentyFive = medianInterval(Array.from({ length: 25 }, (_, i) => 25 - i));
    assert.deepEqual([twentyFive.low, twentyFive.high], [8, 18]);
    assert.ok(twentyFive.level >= 0.95 && twentyFive.level < 0.96);
    // A lower level narrows it: n = 9 at 80 % is x(3)..x(7).
    const narrower = medianInterval(nine, 0.8);
    assert.deepEqual([narrower.low, narrower.high], [3, 7]);
  });

  it('says what the extremes cover where there are too few values', () => {
    const five = medianInterval([5, 4, 3, 2, 1]);
    assert.deepEqual([five.low, five.high], [1, 5]);
    assert.equal(five.level, 1 - 2 / 32);
    assert.deepEqual(medianInterval([7]), { low: 7, high: 7, level: 0 });
    assert.throws(() => medianInterval([]), RangeError);
  });

  it('judges a target against the interval, not the median alone', () => {
    assert.equal(verdictAtMost({ low: 1.1, high: 1.25, level: 0.95 }, 1.3), 'met');
    assert.equal(verdictAtMost({ low: 1.31, high: 1.5, level: 0.95 }, 1.3), 'missed');
    assert.equal(verdictAtMost({ low: 1.2, high: 1.35, level: 0.95 }, 1.3), 'within noise');
  });
});
