import { execFileSync } from 'node:child_process';
import { ROOT } from '../support/dev-run';

/** `npm run dev`'s choice of LiveKit (scripts/dev/livekit.mjs) and the banner's Rooms line, run as dev.mjs runs them. */
function roomsLine(livekitUrl: string): { rooms: { available: boolean; standIn?: boolean }; lines: string[] } {
  const script = `
    import { ensureLivekit } from './scripts/dev/livekit.mjs';
    import { bannerLines } from './scripts/dev/banner.mjs';
    const apiUrl = ${JSON.stringify(livekitUrl)}.replace(/^ws/, 'http');
    const supervisor = { start: () => { throw new Error('npm run dev started something'); } };
    const config = { livekit: { url: ${JSON.stringify(livekitUrl)}, apiUrl, apiKey: 'devkey', apiSecret: 'secret' } };
    const rooms = await ensureLivekit({ config, apiPort: 3000, supervisor, say: () => {}, dataDir: '/nonexistent', root: process.cwd() });
    process.stdout.write(JSON.stringify({ rooms, lines: bannerLines({ port: 3000, rooms, agent: '-', account: null }) }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as ReturnType<
    typeof roomsLine
  >;
}

describe("npm run dev's LiveKit", () => {
  it('never stands in for a LiveKit elsewhere that does not answer: the banner says rooms cannot be created, and how to get one', () => {
    // 192.0.2.1 (TEST-NET-1) never answers
    const { rooms, lines } = roomsLine('ws://192.0.2.1:7880');
    expect(rooms).toMatchObject({ available: false, startedHere: false });
    expect(rooms.standIn).toBeUndefined();
    const line = lines.find((l) => l.startsWith('Rooms:'))!;
    expect(line).toContain('CANNOT be created: nothing answers at http://192.0.2.1:7880');
    expect(line).toContain('https://docs.livekit.io/home/self-hosting/local/');
    expect(line).toContain('docker compose --profile dev up livekit-dev');
  });
});
