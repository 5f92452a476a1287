import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIPv4, isIPv6, type LookupFunction } from 'node:net';

/** IPv4 ranges a download may not connect to (RFC 6890 special-purpose and non-unicast space). */
const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, includes cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

/** IPv6 ranges a download may not connect to. IPv4-mapped addresses (::ffff:a.b.c.d) match the IPv4 rules. */
const BLOCKED_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // unspecified, loopback and deprecated IPv4-compatible addresses
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['64:ff9b:1::', 48], // local-use NAT64
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [network, prefix] of BLOCKED_V4) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of BLOCKED_V6) blocked.addSubnet(network, prefix, 'ipv6');

/** An IPv6 form that carries IPv4 addresses: when it matches, the IPv4 addresses it carries (as 32-bit numbers). */
interface EmbeddingForm {
  name: string;
  embedded(groups: readonly number[]): number[];
}

const zeros = (groups: readonly number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
const ipv4At = (groups: readonly number[], at: number) => ((groups[at]! << 16) | groups[at + 1]!) >>> 0;
const lowIPv4 = (groups: readonly number[]) => [ipv4At(groups, 6)];

/**
 * Every IPv6 form that embeds an IPv4 address a packet may end up at. An address of one of these forms is forbidden
 * when an IPv4 address it carries is: the form is a way to reach that IPv4 host (through the host's own IPv4
 * stack, a translator or a tunnel relay).
 */
const EMBEDDING_FORMS: readonly EmbeddingForm[] = [
  // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2)
  { name: 'IPv4-mapped', embedded: (g) => (zeros(g, 0, 5) && g[5] === 0xffff ? lowIPv4(g) : []) },
  // ::ffff:0:a.b.c.d (RFC 2765 §2.1, SIIT)
  { name: 'IPv4-translated', embedded: (g) => (zeros(g, 0, 4) && g[4] === 0xffff && g[5] === 0 ? lowIPv4(g) : []) },
  // ::a.b.c.d (RFC 4291 §2.5.5.1, deprecated); the whole ::/96 is also blocked outright
  { name: 'IPv4-compatible', embedded: (g) => (zeros(g, 0, 6) ? lowIPv4(g) : []) },
  // 64:ff9b::a.b.c.d (RFC 6052 well-known NAT64 prefix); the local-use 64:ff9b:1::/48 is blocked outright
  { name: 'NAT64', embedded: (g) => (g[0] === 0x64 && g[1] === 0xff9b && zeros(g, 2, 6) ? lowIPv4(g) : []) },
  // 2002:AABB:CCDD::/48, the 6to4 site of a.b.c.d (RFC 3056 §2), IPv4 in bits 16-47
  { name: '6to4', embedded: (g) => (g[0] === 0x2002 ? [ipv4At(g, 1)] : []) },
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (RFC 4380 §4): server IPv4 in bits 32-63, client IPv4 inverted in 96-127
  { name: 'Teredo', embedded: (g) => (g[0] === 0x2001 && g[1] === 0 ? [ipv4At(g, 2), ~ipv4At(g, 6) >>> 0] : []) },
  // any /64 prefix with interface identifier 0000:5efe or 0200:5efe + IPv4 (RFC 5214 §6.1, ISATAP)
  { name: 'ISATAP', embedded: (g) => ((g[4]! | 0x0200) === 0x0200 && g[5] === 0x5efe ? lowIPv4(g) : []) },
];

/**
 * True when `address` (an IP literal) is loopback, unspecified, link-local, private, CGNAT, multicast, broadcast,
 * reserved, or an IPv6 form embedding such an IPv4 address (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64,
 * 6to4, Teredo server or client, ISATAP). Anything that is not an IP literal, or cannot be parsed (an IPv6 zone
 * index), counts as forbidden.
 */
export function isForbiddenAddress(address: string): boolean {
  if (isIPv4(address)) return blocked.check(address, 'ipv4');
  if (!isIPv6(address)) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  if (blocked.check(address, 'ipv6')) return true;
  return EMBEDDING_FORMS.some((form) => form.embedded(groups).some((ipv4) => blocked.check(dotted(ipv4), 'ipv4')));
}

/** The eight 16-bit groups of an IPv6 literal (any spelling: `::`, a dotted IPv4 tail, upper case); else undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let canonical: string;
  try {
    // The URL parser's serialization: lower-case hex, no dotted tail, one `::` at most.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head = '', tail] = canonical.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const high = parse(head);
  const low = tail === undefined ? [] : parse(tail);
  const groups = [...high, ...Array<number>(8 - high.length - low.length).fill(0), ...low];
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

function dotted(ipv4: number): string {
  return [ipv4 >>> 24, (ipv4 >>> 16) & 0xff, (ipv4 >>> 8) & 0xff, ipv4 & 0xff].join('.');
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
