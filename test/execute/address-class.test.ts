import { describe, expect, it } from 'vitest';
import { addressClass, guardedLookup, hostClass, PrivateAddressRefused } from '../../src/execute/runners/address-class.js';

describe('address classes, from public inward', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['224.0.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['::1', 'loopback'],
    ['::', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['[fe80::1%eth0]', 'link-local'],
    ['fd00:ec2::254', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['not an address', 'private'],
  ])('%s is %s', (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });

  it('a host is as public as the least private address it resolves to', async () => {
    expect(await hostClass('127.0.0.1')).toBe('loopback');
    expect(await hostClass('[::1]')).toBe('loopback');
    expect(await hostClass('localhost')).toBe('loopback');
  });

  it('the lookup a connection uses refuses addresses past its limit, and passes the rest through', async () => {
    const refused = await new Promise<unknown>((resolve) => guardedLookup('public')('localhost', {}, (error) => resolve(error)));
    expect(refused).toBeInstanceOf(PrivateAddressRefused);
    expect(String((refused as Error).message)).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address$/);
    const passed = await new Promise<unknown[]>((resolve) => guardedLookup('loopback')('localhost', { all: true }, (error, addresses) => resolve([error, addresses])));
    expect(passed[0]).toBeNull();
    expect(Array.isArray(passed[1])).toBe(true);
  });
});
