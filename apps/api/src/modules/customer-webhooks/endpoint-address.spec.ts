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
      expect(hits).toBe(0);
      const redirected = await postWebhook(url, {}, '{}', { timeoutMs: 1000, allowPrivate: true });
      expect(redirected).toEqual({ ok: false, statusCode: 302, error: 'The endpoint answered 302.' });
      expect(hits).toBe(1);
    } finally {
      server.close();
    }
  });
});
