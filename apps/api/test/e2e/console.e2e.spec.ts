import { routeTable } from '../support/route-table';
import { startTestApp, type TestApp } from '../support/test-app';

/** The console page's serving: what a browser is sent, and nothing at all when it is off (its browser test: console-browser). */
describe('the console page at /console', () => {
  describe('on (the default outside production)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(async () => t.close());

    it('serves the page, its one script and its styles, with the security headers of every answer', async () => {
      const page = await t.http().get('/console').expect(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      // Everything it loads is ours, from this origin: no CDN, no chart library.
      const loaded = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(loaded.sort()).toEqual(['/console/console.css', '/console/console.js', 'data:,']);

      const script = await t.http().get('/console/console.js').expect(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.text).toContain('new EventSource(`/v1/events/stream?${query}`)');
      expect(script.text.match(/https?:\/\/[^\s'"`]+/g)).toEqual(['http://www.w3.org/2000/svg']);
      const styles = await t.http().get('/console/console.css').expect(200);
      expect(styles.headers['content-type']).toBe('text/css; charset=utf-8');
      // A trailing slash is the same page; another method is refused as on every path.
      expect((await t.http().get('/console/').expect(200)).text).toBe(page.text);
      const posted = await t.http().post('/console').send({});
      expect(posted.status).toBe(405);
      expect(posted.headers.allow).toBe('GET, HEAD');
    });

    it('declares its routes public, as the guard and the permissions test require', () => {
      const routes = routeTable(t.app).filter((route) => route.path.startsWith('/console'));
      expect(routes.map((r) => `${r.method} ${r.path} ${r.access}`).sort()).toEqual([
        'GET /console public',
        'GET /console/console.css public',
        'GET /console/console.js public',
      ]);
    });
  });

  it('is an unknown path like any other when CONSOLE_ENABLED=false', async () => {
    const t = await startTestApp({ CONSOLE_ENABLED: 'false' });
    try {
      for (const path of ['/console', '/console/console.js', '/console/console.css']) {
        const res = await t.http().get(path);
        expect([path, res.status, res.body]).toEqual([path, 404, { detail: 'There is no endpoint at this path.' }]);
      }
      expect(routeTable(t.app).filter((route) => route.path.startsWith('/console'))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
