import express from 'express';
import request from 'supertest';
import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A route's JSON object is written by the API's adapter, not by express's res.json: the answer must
 * be the one res.json gives (bytes, Content-Type, Content-Length), HEAD included.
 */
describe('JSON answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('are what express res.json sends for the same object', async () => {
    const org = await createOrganization(t);
    const ours = await t.http().get('/v1/billing/credit').set(org.auth).expect(200);
    const body = JSON.parse(ours.text) as unknown;
    const theirs = await request(express().get('/', (_req, res) => res.json(body))).get('/');
    expect(ours.text).toBe(theirs.text);
    expect(ours.headers['content-type']).toBe(theirs.headers['content-type']);
    expect(ours.headers['content-length']).toBe(theirs.headers['content-length']);
    expect(Number(ours.headers['content-length'])).toBe(Buffer.byteLength(ours.text));
  });

  it('answer HEAD with the GET headers and no body', async () => {
    const org = await createOrganization(t);
    const get = await t.http().get('/v1/users/me').set(org.auth).expect(200);
    const head = await t.http().head('/v1/users/me').set(org.auth).expect(200);
    expect(head.text).toBeUndefined();
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });
});
