import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signWebhook } from './webhook-signature';

describe('signWebhook', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_1', type: 'room.started', data: { id: 'room-1', name: 'Zürich ☕' } });

  it('makes the signature standardwebhooks makes, which verifies with it', () => {
    const at = new Date();
    const timestamp = Math.floor(at.getTime() / 1000);
    const signature = signWebhook(secret, 'evt_1', timestamp, body);
    expect(signature).toBe(new Webhook(secret).sign('evt_1', at, body));
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('does not verify under another secret, id or body', () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signWebhook(secret, 'evt_1', timestamp, body);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('room-1', 'room-2'), headers)).toThrow();
  });
});
