import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

/**
 * How private a network address is, from the public internet inward: `private` (RFC 1918, IPv6
 * unique-local, carrier-grade NAT, multicast and reserved ranges), `loopback` (this machine,
 * 0.0.0.0 and ::), `link-local` (the local link, where cloud metadata services answer:
 * 169.254.169.254, fe80::/10, and AWS's fd00:ec2::254). A redirect may not move a request to a
 * more private class than the host the catalog named (SSRF through a redirect).
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local';

export const CLASS_RANK: Record<AddressClass, number> = { public: 0, private: 1, loopback: 2, 'link-local': 3 };

/** The class of an IP address (v4, v6, or v4 inside v6); anything that is not an address is `private`. */
export function addressClass(address: string): AddressClass {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '').toLowerCase();
  const kind = isIP(bare);
  if (kind === 4) return ipv4Class(bare.split('.').map(Number) as [number, number, number, number]);
  if (kind !== 6) return 'private';
  const words = ipv6Words(bare);
  if (!words) return 'private';
  // v4-mapped (::ffff:a.b.c.d), v4-compatible (::a.b.c.d) and NAT64 (64:ff9b::/96): the v4 address inside decides.
  const v4 = [words[6]! >> 8, words[6]! & 0xff, words[7]! >> 8, words[7]! & 0xff] as [number, number, number, number];
  if (words.slice(0, 5).every((w) => w === 0) && (words[5] === 0xffff || (words[5] === 0 && (words[6] !== 0 || words[7]! > 1)))) return ipv4Class(v4);
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return ipv4Class(v4);
  if (words.every((w) => w === 0) || (words.slice(0, 7).every((w) => w === 0) && words[7] === 1)) return 'loopback';
  if ((words[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if (words[0] === 0xfd00 && words[1] === 0x0ec2 && words.slice(2, 7).every((w) => w === 0) && words[7] === 0x254) return 'link-local';
  if ((words[0]! & 0xfe00) === 0xfc00 || (words[0]! & 0xff00) === 0xff00) return 'private';
  return 'public';
}

function ipv4Class([a, b]: [number, number, number, number]): AddressClass {
  if (a === 127 || a === 0) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19)) || a >= 224) return 'private';
  return 'public';
}

/** The eight 16-bit words of an IPv6 address (which `isIP` has accepted). */
function ipv6Words(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const words = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

/** The least private class among the addresses `host` resolves to (an address literal: its own class). */
export async function hostClass(host: string): Promise<AddressClass> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return addressClass(bare);
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(bare, { all: true }, (error, found) => (error ? reject(error) : resolve(found))));
  return addresses.map((a) => addressClass(a.address)).reduce<AddressClass>((least, next) => (CLASS_RANK[next] < CLASS_RANK[least] ? next : least), 'link-local');
}

/** Why a connection was refused: the address it would have reached and that address's class. */
export class PrivateAddressRefused extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    super(`${host} resolves to ${address}, a ${addressClass} address`);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for socket connections that refuses any address more private than `limit`: checked
 * on the addresses the connection is about to use, so a name that resolved to a public address
 * for a check and to a private one a moment later (DNS rebinding) is still refused.
 */
export function guardedLookup(limit: AddressClass): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      for (const { address } of addresses) {
        const found = addressClass(address);
        if (CLASS_RANK[found] > CLASS_RANK[limit]) return callback(new PrivateAddressRefused(hostname, address, found), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}
