import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIPv4, isIPv6, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * ipaddr.js's names (`IPv4#range()`) of the IPv4 ranges a download may not connect to: RFC 6890 special-purpose and
 * non-unicast space (this network, private, carrier-grade NAT, loopback, link-local with the cloud metadata address
 * 169.254.169.254, IETF protocol assignments, documentation, benchmarking, the deprecated 6to4 relay anycast,
 * multicast, reserved and broadcast). Allowed: `unicast` and the public anycast services `as112` and `amt`.
 */
const FORBIDDEN_V4_RANGES: ReadonlySet<string> = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'carrierGradeNat', 'private', 'reserved']);

/**
 * ipaddr.js's names (`IPv6#range()`) of the IPv6 ranges a download may not connect to: unspecified, loopback,
 * link-local, deprecated site-local, unique local, multicast, discard, benchmarking, deprecated ORCHID, segment
 * routing SIDs and reserved (IETF protocol assignments, documentation 2001:db8::/32 and 3fff::/20). The forms that
 * carry an IPv4 address (see {@link EMBEDDED_IPV4}) are judged by that address; `unicast` and the globally reachable
 * special ranges (`amt`, `as112v6`, `orchid2`, `droneRemoteIdProtocolEntityTags`) are allowed.
 */
const FORBIDDEN_V6_RANGES: ReadonlySet<string> = new Set([
  'unspecified',
  'loopback',
  'linkLocal',
  'deprecatedSiteLocal',
  'uniqueLocal',
  'multicast',
  'discard',
  'benchmarking',
  'deprecatedOrchid',
  'segmentRouting',
  'reserved',
]);

/** IPv6 ranges that ipaddr.js does not name apart from allowed ones, forbidden outright. */
const FORBIDDEN_V6_EXTRA: readonly [IPv6, number][] = [
  // ::a.b.c.d, deprecated IPv4-compatible addresses (RFC 4291 §2.5.5.1): ipaddr.js calls them unicast
  ipaddr.IPv6.parseCIDR('::/96'),
  // local-use NAT64 (RFC 8215), part of ipaddr.js's rfc6052: the operator picks where in it the IPv4 address sits
  ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
];

/** The IPv4 address in two 16-bit groups of an IPv6 address (inverted: Teredo's obfuscated client). */
const ipv4At = (parts: readonly number[], at: number, inverted = false): IPv4 => {
  const value = ((parts[at]! << 16) | parts[at + 1]!) ^ (inverted ? 0xffffffff : 0);
  return new ipaddr.IPv4([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
};

/**
 * The IPv4 addresses an IPv6 address of one of ipaddr.js's embedding ranges carries, by range name. Such an address
 * is a way to reach that IPv4 host (through the host's own IPv4 stack, a translator or a tunnel relay), so it is
 * forbidden when an IPv4 address it carries is.
 */
const EMBEDDED_IPV4: Readonly<Record<string, (address: IPv6) => IPv4[]>> = {
  // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2)
  ipv4Mapped: (address) => [address.toIPv4Address()],
  // ::ffff:0:a.b.c.d (RFC 6145 / RFC 2765 §2.1, SIIT)
  rfc6145: (address) => [ipv4At(address.parts, 6)],
  // 64:ff9b::a.b.c.d (RFC 6052 well-known NAT64 prefix)
  rfc6052: (address) => [ipv4At(address.parts, 6)],
  // 2002:AABB:CCDD::/48, the 6to4 site of a.b.c.d (RFC 3056 §2), IPv4 in bits 16-47
  '6to4': (address) => [ipv4At(address.parts, 1)],
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (RFC 4380 §4): server IPv4 in bits 32-63, client IPv4 inverted in 96-127
  teredo: (address) => [ipv4At(address.parts, 2), ipv4At(address.parts, 6, true)],
};

/** ISATAP (RFC 5214 §6.1): any /64 prefix with interface identifier 0000:5efe or 0200:5efe followed by the IPv4. */
const isatapIPv4 = ({ parts }: IPv6): IPv4[] => ((parts[4]! | 0x0200) === 0x0200 && parts[5] === 0x5efe ? [ipv4At(parts, 6)] : []);

const forbiddenIPv4 = (address: IPv4) => FORBIDDEN_V4_RANGES.has(address.range());

/**
 * True when `address` (an IP literal) is loopback, unspecified, link-local, private, CGNAT, multicast, broadcast,
 * reserved, or an IPv6 form embedding such an IPv4 address (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64,
 * 6to4, Teredo server or client, ISATAP). Ranges are ipaddr.js's. Anything that is not an IP literal as Node reads
 * one (`net.isIP`: no leading zeros, no short or hex IPv4 forms), or that has an IPv6 zone index, counts as
 * forbidden.
 */
export function isForbiddenAddress(address: string): boolean {
  if (isIPv4(address)) return forbiddenIPv4(ipaddr.IPv4.parse(address));
  if (!isIPv6(address) || !ipaddr.IPv6.isValid(address)) return true;
  const ipv6 = ipaddr.IPv6.parse(address);
  if (ipv6.zoneId !== undefined) return true;
  const range = ipv6.range();
  if (FORBIDDEN_V6_RANGES.has(range) || FORBIDDEN_V6_EXTRA.some((cidr) => ipv6.match(cidr))) return true;
  const embedded = [...(EMBEDDED_IPV4[range]?.(ipv6) ?? []), ...isatapIPv4(ipv6)];
  return embedded.some(forbiddenIPv4);
}

/** Raised through the socket when a host name resolves to a forbidden address. */
export class ForbiddenAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, which is not a public address`);
    this.name = 'ForbiddenAddressError';
  }
}

/** Decides whether a connection to an IP address is refused. */
export type AddressPolicy = (address: string) => boolean;

/** Resolves a host name to all its addresses, like `dns.lookup` with `all: true` (which is the default). */
export type HostResolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Makes a `lookup` for `http.request`/`net.connect` that resolves with `resolve` (the system resolver by default)
 * and refuses the whole host when any of its addresses is forbidden by `isForbidden`. Because the socket connects to
 * exactly the address checked here, DNS answers that change between a check and the connection (rebinding) cannot
 * slip through.
 */
export function guardedLookup(isForbidden: AddressPolicy = isForbiddenAddress, resolve: HostResolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const bad = addresses.find((a) => isForbidden(a.address));
      if (bad) return callback(new ForbiddenAddressError(hostname, bad.address), '');
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}
