// The transcript rows of `npm run bench` (issue 20):
// 1. Intake: BENCH_TRANSCRIPT_ROOMS rooms (default 200) report their segments at once, as that many
//    translator sessions would: each room its own producer adding its segments in spoken order onto
//    translator-events (plus every 5th segment sent twice, as a retried job), while the API's worker
//    stores them. Segments stored per second from the first report to the last stored, then the rows
//    are counted: 0 lost, 0 doubled.
// 2. Export: a 2-hour room of 2,000 segments read as WebVTT over HTTP, BENCH_TRANSCRIPT_READS times.
// Everything runs in this process (the API with its workers, and the producers) on a database of its own.
// Prints a markdown table, then one JSON line (read by bench/run.mjs).
import type { TranscriptSegmentReport } from '@app/contracts';
import { QUEUES } from '@app/contracts';
import { Queue } from 'bullmq';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DatabaseClient } from '../apps/api/src/database/database.client';
import { percentile, withInProcessApp } from './in-process-app';
import { TranscriptsRepository } from '../apps/api/src/modules/transcripts/transcripts.repository';

const ROOMS = Number(process.env.BENCH_TRANSCRIPT_ROOMS ?? 200);
const SEGMENTS_PER_ROOM = Number(process.env.BENCH_TRANSCRIPT_SEGMENTS ?? 25);
const READS = Number(process.env.BENCH_TRANSCRIPT_READS ?? 100);
const EXPORT_SEGMENTS = 2_000;
const TARGET_PER_SECOND = 1_000;
const TARGET_VTT_P50_MS = 30;

async function main(): Promise<void> {
  await withInProcessApp('transcripts', {}, async ({ app, db, redis, queuePrefix, organizationId, userId, apiKey }) => {
    const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const rooms = (
      await db.query(
        `INSERT INTO rooms (organization_id, name, livekit_name, created_by_user_id, status, streaming_mode, started_at)
           SELECT $1::uuid, 'bench-' || n, $1::text || '.bench-' || n, $2, 'active', 'dual', now() FROM generate_series(1, $3::int) AS n RETURNING id, livekit_name`,
        [organizationId, userId, ROOMS + 1],
      )
    ).rows as { id: string; livekit_name: string }[];
    const exportRoom = rooms.pop()!;

    // 1. Intake.
    const producers = Array.from({ length: 8 }, () => new Queue(QUEUES.translatorEvents, { connection: redis, prefix: queuePrefix }));
    const start = Date.now();
    const segment = (room: { id: string; livekit_name: string }, i: number): TranscriptSegmentReport => ({
      type: 'segment',
      roomId: room.id,
      livekitRoom: room.livekit_name,
      at: new Date().toISOString(),
      segmentId: `bench-${i}`,
      participantIdentity: i % 2 === 0 ? 'alice' : 'bruno',
      language: i % 2 === 0 ? 'en' : 'es',
      text: `utterance number ${i} of this room, about as long as people speak between pauses`,
      translation: {
        language: i % 2 === 0 ? 'es' : 'en',
        text: `enunciado número ${i} de esta sala, más o menos tan largo como se habla`,
      },
      startedAt: new Date(start + i * 3_000).toISOString(),
      endedAt: new Date(start + i * 3_000 + 2_500).toISOString(),
    });
    const t0 = performance.now();
    let sent = 0;
    await Promise.all(
      rooms.map(async (room, r) => {
        const queue = producers[r % producers.length];
        for (let i = 0; i < SEGMENTS_PER_ROOM; i++) {
          const job = segment(room, i);
          await queue.add('segment', job, { jobId: `bench.${room.id}.${i}`, removeOnComplete: true });
          sent += 1;
          // A retried job of another session: a new job id, the same segment.
          if (i % 5 === 0) {
            await queue.add('segment', job, { jobId: `bench.${room.id}.${i}.again`, removeOnComplete: true });
            sent += 1;
          }
        }
      }),
    );
    const expected = ROOMS * SEGMENTS_PER_ROOM;
    let stored = 0;
    const deadline = Date.now() + 120_000;
    while (stored < expected && Date.now() < deadline) {
      stored = (await db.query(`SELECT count(*)::int AS n FROM transcript_segments WHERE room_id <> $1`, [exportRoom.id])).rows[0].n;
      if (stored < expected) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - t0) / 1000;
    // Wait for the duplicates to be consumed too, then count.
    const queue = producers[0];
    while (Object.values(await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).some((n) => n > 0)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const counts = (
      await db.query(
        `SELECT count(*)::int AS stored, count(DISTINCT (room_id, segment_id))::int AS distinct_segments FROM transcript_segments WHERE room_id <> $1`,
        [exportRoom.id],
      )
    ).rows[0] as { stored: number; distinct_segments: number };
    const lost = expected - counts.distinct_segments;
    const doubled = counts.stored - counts.distinct_segments;
    const perSecond = Math.round(stored / seconds);
    await Promise.all(producers.map((p) => p.close()));

    // 2. Export: 2,000 segments over two hours.
    const repository = app.get(TranscriptsRepository);
    const database = app.get(DatabaseClient);
    const twoHours = 2 * 3_600_000;
    for (let from = 0; from < EXPORT_SEGMENTS; from += 500) {
      const segments = Array.from({ length: Math.min(500, EXPORT_SEGMENTS - from) }, (_, k) => {
        const i = from + k;
        const begin = start + Math.floor((i * twoHours) / EXPORT_SEGMENTS);
        return {
          roomId: exportRoom.id,
          livekitRoom: exportRoom.livekit_name,
          segmentId: `export-${String(i).padStart(5, '0')}`,
          participantIdentity: i % 2 === 0 ? 'alice' : 'bruno',
          language: i % 2 === 0 ? 'en' : 'es',
          text: `utterance number ${i}, about as long as people speak between two pauses in a meeting`,
          translation: {
            language: i % 2 === 0 ? 'es' : 'en',
            text: `enunciado número ${i}, más o menos tan largo como se habla entre pausas`,
          },
          startedAt: new Date(begin),
          endedAt: new Date(begin + 2_800),
        };
      });
      await database.oneStatement((tx) => repository.store(segments, tx));
    }
    const url = `${baseUrl}/v1/rooms/${exportRoom.id}/transcript?format=vtt`;
    const headers = { Authorization: `Bearer ${apiKey}` };
    let cues = 0;
    for (let i = 0; i < 5; i++) cues = ((await (await fetch(url, { headers })).text()).match(/-->/g) ?? []).length;
    const times: number[] = [];
    for (let i = 0; i < READS; i++) {
      const begin = performance.now();
      const res = await fetch(url, { headers });
      await res.text();
      times.push(performance.now() - begin);
    }
    const p50 = Math.round(percentile(times, 50) * 10) / 10;
    const p99 = Math.round(percentile(times, 99) * 10) / 10;

    const intakePass = perSecond >= TARGET_PER_SECOND && lost === 0 && doubled === 0;
    const exportPass = p50 <= TARGET_VTT_P50_MS && cues === EXPORT_SEGMENTS;
    process.stdout.write(
      `| transcripts | measured | target | pass/fail |\n|---|--:|---|---|\n` +
        `| segments stored per second, ${ROOMS} rooms reporting at once (${expected} segments, ${sent} reports with retries) | ${perSecond}/s | ≥ ${TARGET_PER_SECOND}/s | ${intakePass ? 'pass' : 'FAIL'} |\n` +
        `| segments lost / doubled | ${lost} / ${doubled} | 0 / 0 | ${lost === 0 && doubled === 0 ? 'pass' : 'FAIL'} |\n` +
        `| WebVTT of a 2-hour room (${cues} cues), ${READS} reads: p50 / p99 ms | ${p50} / ${p99} | p50 ≤ ${TARGET_VTT_P50_MS} ms | ${exportPass ? 'pass' : 'FAIL'} |\n\n`,
    );
    process.stdout.write(`${JSON.stringify({ perSecond, lost, doubled, p50, p99, pass: intakePass && exportPass })}\n`);
  });
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
