import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/app-config';

/** Docker cannot run here: the files are checked for what makes `docker compose up --build` work. */
const ROOT = path.resolve(__dirname, '../../../..');
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<
    string,
    {
      image?: string;
      build?: { context: string; target: string };
      environment?: Record<string, string>;
      command?: string[];
      healthcheck?: { test: string[] };
      depends_on?: Record<string, { condition: string }>;
    }
  >;
};
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Compose's `${NAME:-default}` with the defaults, as `docker compose up` without those variables set. */
const interpolate = (text: string) => text.replace(/\$\{\w+:-([^}]*)\}/g, '$1');

/** The instructions of each stage of the Dockerfile, by stage name. */
function stages(): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  let current = '';
  for (const line of dockerfile.replace(/\\\n\s*/g, ' ').split('\n')) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\w+)/i.exec(line);
    if (from) found[(current = from[2])] = [line];
    else if (current && /^[A-Z]+\s/.test(line)) found[current].push(line);
  }
  return found;
}

describe('docker-compose.yml and Dockerfile', () => {
  it('pin every image to a version', () => {
    const images = [
      ...Object.values(compose.services).flatMap((service) => (service.image ? [service.image] : [])),
      ...[...dockerfile.matchAll(/^FROM\s+(\S+)/gim)].map((m) => m[1]),
    ];
    expect(images.filter((image) => !/:v?\d+\.\d+(\.\d+)?(-[\w.-]+)?$/.test(image))).toEqual([]);
  });

  it('start the API and the queue workers with the V8 flags `npm run dev` and the bench use', () => {
    const read =
      "const { SERVER_NODE_FLAGS } = await import('./scripts/server-node-flags.mjs'); process.stdout.write(JSON.stringify(SERVER_NODE_FLAGS));";
    const flags = (
      JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', read], { cwd: ROOT, encoding: 'utf8' })) as string[]
    ).join(' ');
    expect(flags).toMatch(/^--max-semi-space-size=\d+/);
    expect(scripts['start:api']).toBe(`node ${flags} dist/apps/api/apps/api/src/main.js`);
    expect(scripts['start:worker']).toBe(`node ${flags} dist/apps/api/apps/api/src/worker.js`);
    expect(stages().run).toContain(`ENV NODE_OPTIONS=${flags}`);
  });

  it('build with dev dependencies and run with production ones, as a non-root user', () => {
    const { build, run } = stages();
    const install = build.find((line) => /^RUN npm ci\b/.test(line))!;
    expect(install).not.toMatch(/--omit=dev|--production|--only=prod/);
    expect(build.slice(0, build.indexOf(install)).join('\n')).not.toMatch(/NODE_ENV=production/);
    expect(build.indexOf(build.find((line) => /npm run build/.test(line))!)).toBeGreaterThan(build.indexOf(install));
    expect(run.find((line) => /^RUN npm ci\b/.test(line))).toMatch(/--omit=dev/);
    expect(run).toContain('COPY --from=build /app/dist ./dist');
    expect(run.find((line) => /^USER /.test(line))).toMatch(/^USER (?!root\b|0\b)\w+/);
    // no container installs or builds at start (NODE_ENV=production would skip the compiler)
    expect(Object.values(compose.services).filter((s) => /npm (ci|install)|nest build/.test((s.command ?? []).join(' ')))).toEqual([]);
  });

  it('run the API and the agent from the image, with the entry points npm scripts use', () => {
    const { api, agent } = compose.services;
    expect([api.build, agent.build]).toEqual([
      { context: '.', target: 'run' },
      { context: '.', target: 'run' },
    ]);
    // The image gives the API its V8 flags through NODE_OPTIONS (checked above).
    const entry = (script: string) => scripts[script].replace(/^node (--\S+ )*/, '');
    expect(api.command!.join(' ')).toContain(entry('migrate'));
    expect(api.command!.join(' ')).toContain(entry('start:api'));
    expect(agent.command).toEqual(['node', entry('start:agent')]);
    expect(dockerfile).toContain(`CMD ["node", "${entry('start:api')}"]`);
  });

  it('give every service a healthcheck and start each after what it needs is healthy', () => {
    expect(Object.entries(compose.services).filter(([, service]) => !service.healthcheck?.test?.length)).toEqual([]);
    expect(compose.services.api.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      livekit: { condition: 'service_healthy' },
    });
  });

  it("point LiveKit's webhooks at the API, signed with the key the API verifies", () => {
    const livekit = parse(interpolate(compose.services.livekit.environment!.LIVEKIT_CONFIG)) as {
      keys: Record<string, string>;
      webhook: { api_key: string; urls: string[] };
    };
    const env = Object.fromEntries(Object.entries(compose.services.api.environment!).map(([k, v]) => [k, interpolate(String(v))]));
    expect(livekit.webhook.urls).toEqual(['http://api:3000/v1/webhooks/livekit']);
    expect(livekit.webhook.api_key).toBe(env.LIVEKIT_API_KEY);
    expect(livekit.keys).toEqual({ [env.LIVEKIT_API_KEY]: env.LIVEKIT_API_SECRET });
  });

  it('offer npm run dev a LiveKit with its development keys, reporting to the API on the host', () => {
    const service = compose.services['livekit-dev'] as (typeof compose.services)[string] & { profiles: string[]; extra_hosts: string[] };
    const livekit = parse(interpolate(service.environment!.LIVEKIT_CONFIG)) as {
      keys: Record<string, string>;
      webhook: { api_key: string; urls: string[] };
    };
    const defaults = loadConfig({});
    expect(service.profiles).toEqual(['dev']);
    expect(livekit.keys).toEqual({ [defaults.livekit.apiKey]: defaults.livekit.apiSecret });
    expect(livekit.webhook).toEqual({
      api_key: defaults.livekit.apiKey,
      urls: [`http://host.docker.internal:${defaults.port}/v1/webhooks/livekit`],
    });
    expect(service.extra_hosts).toEqual(['host.docker.internal:host-gateway']);
  });

  it("give the API a configuration its production checks accept, with compose's defaults", () => {
    const env = Object.fromEntries(Object.entries(compose.services.api.environment!).map(([k, v]) => [k, interpolate(String(v))]));
    expect(env.NODE_ENV).toBe('production');
    expect(() => loadConfig(env)).not.toThrow();
  });
});
