import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPublicAddress } from './endpoint-address';
import { postWebhook } from './webhook-sender';

describe('isPublicAddress', () => {
  it.each([
    ['93.184.215.14', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true], // IPv4-mapped: judged by the IPv4 address it reaches
    ['::ffff:0:127.0.0.1', false], // IPv4-translated (RFC 6145)
    ['::ffff:0:8.8.8.8', true],
    ['::127.0.0.1', false], // IPv4-compatible ::/96, deprecated: never public
    ['::7f00:1', false],
    ['::8.8.8.8', false],
    ['64:ff9b::127.0.0.1', false], // NAT64 of a non-public IPv4
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::8.8.8.8', true],
    ['64:ff9b:1::808:808', false], // local-use NAT64 prefix
    ['2002:7f00:1::', false], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', false], // 6to4 of 192.168.1.1
    ['2002:808:808::1', true],
    ['2001:0:7f00:1::', false], // Teredo with a loopback server
    ['2001:0:808:808::f5ff:fffe', false], // Teredo client 10.0.0.1 (obfuscated)
    ['2001:0:808:808::f7f7:f7f7', true], // Teredo server and client 8.8.8.8
    ['2001:db8::1', false], // documentation
    ['100::1', false], // discard
    ['fec0::1', false], // site-local
    ['4000::1', false], // outside global unicast
    ['240.0.0.1', false],
    ['255.255.255.255', false],
    ['198.18.0.1', false],
    ['fe80::1%eth0', false],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('postWebhook', () => {
  it('refuses a private address at delivery time unless private URLs are allowed, and never follows a redirect', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const refused = await postWebhook(url, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect(refused).toEqual({ ok: false, statusCode: null, error: expect.stringContaining('not a public https address') });
      const viaName = await postWebhook(url.replace('127.0.0.1', 'localhost').replace('http:', 'https:'), {}, '{}', {
        timeoutMs: 1000,
        allowPrivate: false,
      });
      expect(viaName).toEqual({ ok: false, statusCode: null, error: expect.stringContaining('non-public address') });
      for (const embedded of ['[::127.0.0.1]', '[2002:7f00:1::]', '[64:ff9b::7f00:1]', '[2001:0:7f00:1::]']) {
        const viaEmbedding = await postWebhook(`https://${embedded}/hooks`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
        expect(viaEmbedding).toEqual({ ok: false, statusCode: null, error: expect.stringContaining('not a public https address') });
      }
      expect(hits).toBe(0);
      const redirected = await postWebhook(url, {}, '{}', { timeoutMs: 1000, allowPrivate: true });
      expect(redirected).toEqual({ ok: false, statusCode: 302, error: 'The endpoint answered 302.' });
      expect(hits).toBe(1);
    } finally {
      server.close();
    }
  });
});
