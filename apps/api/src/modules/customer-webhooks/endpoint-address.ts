import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a webhook must never go: loopback, private, shared, link-local (cloud metadata), multicast,
 * reserved. Two lists: a BlockList matches IPv4 addresses against its IPv6 rules too (as mapped).
 */
const refused4 = new BlockList();
const refused6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  refused4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127], // unspecified and loopback
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64 (reaches IPv4 addresses)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (also AWS's fd00:ec2::254 metadata)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  refused6.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !refused4.check(address, 'ipv4') : !refused6.check(address, 'ipv6');
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
