import { lookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook must never go: anything but a public unicast address. ipaddr.js names the special
 * ranges (loopback, private, shared, link-local and cloud metadata, multicast, reserved, …); an IPv6
 * address that carries an IPv4 one (mapped, translated, NAT64, 6to4, Teredo) is judged by the IPv4
 * addresses it reaches, and the rest of IPv6 is public only inside global unicast (2000::/3), which
 * leaves out the deprecated IPv4-compatible ::/96.
 */
const globalUnicast6 = ipaddr.IPv6.parseCIDR('2000::/3');
const nat64WellKnown = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const unspecified4 = new ipaddr.IPv4([0, 0, 0, 0]);

function isPublic4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

function ipv4At(bytes: number[], offset: number, mask = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((byte) => byte ^ mask));
}

/** The IPv4 addresses an IPv6 address leads to, or null when it embeds none. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return [ipv4At(bytes, 12)]; // ::ffff:a.b.c.d, ::ffff:0:a.b.c.d
  // 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 may place it anywhere
  if (range === 'rfc6052') return address.match(nat64WellKnown) ? [ipv4At(bytes, 12)] : [unspecified4];
  if (range === '6to4') return [ipv4At(bytes, 2)]; // 2002:aabb:ccdd::
  if (range === 'teredo') return [ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff)]; // server, then the obfuscated client
  return null;
}

/** ipaddr.js reads '::a.b.c.d' as IPv4-mapped: the WHATWG URL parser spells the address in hex first. */
function parse6(address: string): ipaddr.IPv6 | null {
  try {
    return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    return null; // a zone id (link-local only) or an unparsable address
  }
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return isPublic4(ipaddr.IPv4.parse(address));
  const v6 = parse6(address);
  if (!v6) return false;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.every(isPublic4);
  return v6.range() === 'unicast' && v6.match(globalUnicast6);
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/**
 * DNS lookup for deliveries that refuses hosts resolving to non-public addresses, checked on the
 * addresses the socket then connects to (a host cannot pass the check and then rebind).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) return callback(new RefusedAddressError(`${hostname} resolves to a non-public address (${bad.address})`), '', 4);
    if (options.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/** The host's addresses ([] when it cannot be resolved). */
export async function resolveHost(hostname: string): Promise<string[]> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(host)) return [host];
  return new Promise((resolve) => lookup(host, { all: true }, (error, addresses) => resolve(error ? [] : addresses.map((a) => a.address))));
}
