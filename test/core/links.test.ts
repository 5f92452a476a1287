import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { LinkBuilder } from '../../src/core/links.js';
import { UrlSigner } from '../../src/storage/url-signer.js';

const TTL = 3_600_000;
const blob = { id: 'blob-0001', contentType: 'video/mp4', size: 10 };

/** A builder on a clock the test moves, and the signer behind it. */
function builder() {
  const clock = { now: Date.UTC(2025, 5, 1) };
  const signer = new UrlSigner(randomBytes(32));
  return { clock, signer, links: new LinkBuilder(signer, 'https://api.example', TTL, () => clock.now) };
}

/** The expiry and signature of a `/files` link, checked against `signer` at `now`. */
function check(signer: UrlSigner, link: string, now: number) {
  const url = new URL(link);
  const [, , id, name] = url.pathname.split('/');
  const expires = Number(url.searchParams.get('expires'));
  return { expires, outcome: signer.verify(id!, expires, url.searchParams.get('signature')!, now, name && decodeURIComponent(name)) };
}

describe('LinkBuilder', () => {
  it('signs a link valid ttlMs, covering the download name', () => {
    const { clock, signer, links } = builder();
    const link = links.to(blob, 'my video.mp4');
    assert.match(link, /^https:\/\/api\.example\/files\/blob-0001\/my%20video\.mp4\?expires=\d+&signature=[\w-]{43}$/);
    assert.deepEqual(check(signer, link, clock.now), { expires: clock.now + TTL, outcome: 'ok' });
    assert.equal(check(signer, link.replace('my%20video', 'other'), clock.now).outcome, 'invalid');
  });

  it('hands the same link out again while it keeps 99 % of its lifetime (a minute at most), then signs a new one', () => {
    const { clock, signer, links } = builder();
    const first = links.to(blob, 'a.mp4');
    clock.now += 30_000;
    assert.equal(links.to(blob, 'a.mp4'), first, 'reused within 1 % of an hour');
    assert.notEqual(links.to(blob, 'b.mp4'), first, 'another name is another link');
    assert.notEqual(links.to(blob), first, 'a link without a name is another link');
    clock.now += 6_001;
    const second = links.to(blob, 'a.mp4');
    assert.notEqual(second, first);
    assert.deepEqual(check(signer, second, clock.now), { expires: clock.now + TTL, outcome: 'ok' });
  });

  it('never hands out a link valid longer than ttlMs, even when the clock goes back', () => {
    const { clock, links } = builder();
    const first = links.to(blob, 'a.mp4');
    clock.now -= 1_000;
    const again = links.to(blob, 'a.mp4');
    assert.notEqual(again, first);
    assert.equal(Number(new URL(again).searchParams.get('expires')), clock.now + TTL);
  });

  it('reuses for 1 % of a short lifetime only', () => {
    const clock = { now: 1_000_000 };
    const links = new LinkBuilder(new UrlSigner(randomBytes(32)), 'http://h', 300, () => clock.now);
    const first = links.to(blob, 'a.mp4');
    clock.now += 3;
    assert.equal(links.to(blob, 'a.mp4'), first);
    clock.now += 1;
    assert.notEqual(links.to(blob, 'a.mp4'), first);
  });

  it('writes a lone surrogate of a name as U+FFFD (a name that UTF-8 cannot carry still makes a link)', () => {
    const { clock, signer, links } = builder();
    const link = links.to(blob, 'a\uD800b.mp4');
    assert.match(link, /\/files\/blob-0001\/a%EF%BF%BDb\.mp4\?/);
    assert.equal(check(signer, link, clock.now).outcome, 'ok');
  });

  it('answers an empty link for no blob', () => {
    assert.equal(builder().links.to(undefined, 'a.mp4'), '');
  });
});
