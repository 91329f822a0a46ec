import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('structured logs', () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'info' }, { write: (chunk: string) => void lines.push(chunk) });
  });
  afterAll(async () => t.close());

  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('writes one JSON line per request carrying its request id, and never a credential', async () => {
    const org = await createOrganization(t);
    await t.http().get('/v1/users/me').set(org.auth).set('X-Request-Id', 'trace-abc').expect(200);
    await t.http().get('/v1/invites/SECRETCODE123.abc').set('X-Request-Id', 'trace-invite').expect(404);
    const entries = parsed();
    const me = entries.find((e) => e.requestId === 'trace-abc');
    expect(me).toMatchObject({ level: 30, method: 'GET', url: '/v1/users/me', status: 200, msg: 'request' });
    expect(entries.find((e) => e.requestId === 'trace-invite')).toMatchObject({ url: '/v1/invites/[code]', status: 404 });
    const all = lines.join('\n');
    expect(all).not.toContain(org.apiKey);
    expect(all).not.toContain('SECRETCODE123');
  });

  it('logs a server error with the request id it answered', async () => {
    lines.length = 0;
    const org = await createOrganization(t);
    // LiveKit is not reachable in this test app: room creation answers 503
    const res = await t.http().post('/v1/rooms').set(org.auth).set('X-Request-Id', 'trace-503').send({});
    expect(res.status).toBe(503);
    const warning = parsed().find((e) => e.msg === 'Answered with a server error');
    expect(warning).toMatchObject({ requestId: 'trace-503', status: 503 });
    // the log names the address that did not answer, so the fix is obvious
    const cause = parsed().find((e) => typeof e.msg === 'string' && e.msg.startsWith('LiveKit at'));
    expect(cause?.msg).toContain(`LiveKit at ${t.config.livekit.apiUrl} could not create the room`);
  });
});

describe('start-up logs', () => {
  async function startLines(level: string) {
    const lines: Record<string, unknown>[] = [];
    const t = await startTestApp(
      { LOG_LEVEL: level },
      { write: (chunk: string) => void lines.push(JSON.parse(chunk) as Record<string, unknown>) },
    );
    await t.close();
    return lines;
  }
  const routeMappings = (lines: Record<string, unknown>[]) => lines.filter((e) => e.context === 'RouterExplorer');

  it('keep route mapping and module loading out of the info level: a start prints a few lines', async () => {
    const info = await startLines('info');
    expect(info.filter((e) => ['RouterExplorer', 'RoutesResolver', 'InstanceLoader'].includes(String(e.context)))).toEqual([]);
    expect(info.length).toBeLessThan(10);
    const debug = await startLines('debug');
    expect(routeMappings(debug).length).toBeGreaterThan(20);
    expect(new Set(routeMappings(debug).map((e) => e.level))).toEqual(new Set([20]));
  });
});
