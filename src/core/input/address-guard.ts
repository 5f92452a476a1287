import { lookup as dnsLookup } from 'node:dns';
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

const nat64 = new BlockList();
nat64.addSubnet('64:ff9b::', 96, 'ipv6');

/**
 * True when `address` (an IP literal) is loopback, unspecified, link-local, private, CGNAT, multicast, broadcast,
 * reserved, or an IPv4-mapped / NAT64 form of one of those. Anything that is not an IP literal counts as forbidden.
 */
export function isForbiddenAddress(address: string): boolean {
  if (isIPv4(address)) return blocked.check(address, 'ipv4');
  if (!isIPv6(address)) return true;
  if (blocked.check(address, 'ipv6')) return true;
  const embedded = nat64.check(address, 'ipv6') ? embeddedIPv4(address) : undefined;
  return embedded !== undefined && blocked.check(embedded, 'ipv4');
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedIPv4(address: string): string | undefined {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1); // e.g. "64:ff9b::a00:1"
  const groups = canonical.split(':');
  if (groups.at(-1)?.includes('.')) return groups.at(-1);
  const [high, low] = groups.slice(-2).map((g) => Number.parseInt(g || '0', 16));
  if (high === undefined || low === undefined) return undefined;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
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

/**
 * Makes a `lookup` for `http.request`/`net.connect` that resolves with the system resolver and refuses the whole
 * host when any of its addresses is forbidden by `isForbidden`. Because the socket connects to exactly the address
 * checked here, DNS answers that change between a check and the connection (rebinding) cannot slip through.
 */
export function guardedLookup(isForbidden: AddressPolicy = isForbiddenAddress): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
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
