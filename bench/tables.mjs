// The bench's tables: the request rows (alone or against another build), the webhook rows and the
// customer webhook latency rows, as markdown.
import { COMPARE_MIN_RATIO, STREAM_TARGET_P99_MS } from './settings.mjs';

const STAGE_NAMES = {
  sentToStored: 'first join sent → stored (answered 2xx)',
  storedToApplied: 'stored → applied (the transaction starting the room began)',
  appliedToWritten: 'applied → outbox row written (room.started and its deliveries, last in that transaction)',
  writtenToReceived: 'outbox row written → received by the endpoint (commit, dispatch, POST)',
  writtenToDelivered: 'outbox row written → 2xx recorded in the database',
};

function describeTarget(target = {}) {
  const parts = [];
  if (target.ratio !== undefined) parts.push(`ratio ≥ ${target.ratio}`);
  if (target.maxP99Ms !== undefined) parts.push(`p99 ≤ ${target.maxP99Ms} ms`);
  if (target.maxP50Ratio !== undefined) parts.push(`p50 ≤ ${target.maxP50Ratio} × baseline p50`);
  return parts.join(', ') || '—';
}

function verdict(row) {
  if (row.error) return 'error';
  const { target = {} } = row.scenario;
  const reasons = [];
  if (row.api.errors > 0 || row.baseline.errors > 0) reasons.push('errors');
  if (target.ratio !== undefined && row.ratio < target.ratio) reasons.push('ratio');
  if (target.maxP99Ms !== undefined && row.api.p99 > target.maxP99Ms) reasons.push('p99');
  if (target.maxP50Ratio !== undefined && row.api.p50 > target.maxP50Ratio * row.baseline.p50) reasons.push('p50');
  return reasons.length ? `FAIL (${reasons.join(', ')})` : 'pass';
}

/** A markdown table with aligned columns; columns 1 to `lastNumeric` are right-aligned numbers. */
function markdownTable(header, lines, lastNumeric) {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  const numeric = (i) => i >= 1 && i <= lastNumeric;
  const cell = (text, i) => (numeric(i) ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  const render = (line) => `| ${line.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [render(header), rule, ...lines.map(render)].join('\n');
}

export function formatTable(rows) {
  const fmt = (value, digits = 0) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'baseline p50', 'ratio', 'target', 'pass/fail'];
  const lines = rows.map((row) => [
    row.scenario.name,
    fmt(row.api?.rps),
    fmt(row.api?.p50),
    fmt(row.api?.p99),
    fmt(row.baseline?.rps),
    fmt(row.baseline?.p50),
    fmt(row.ratio, 2),
    describeTarget(row.scenario.target),
    verdict(row),
  ]);
  return markdownTable(header, lines, 6);
}

/** BENCH_COMPARE's table: each request row for the other build and this one, measured in the same rounds. */
export function formatCompareTable(rows, ref) {
  const fmt = (value, digits = 0) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));
  const header = [
    'scenario',
    `${ref} req/s`,
    'new req/s',
    'new ÷ old',
    `${ref} p50 / p99 ms`,
    'new p50 / p99 ms',
    `API CPU µs/req ${ref} / new`,
    'bare req/s',
    'new ÷ bare',
    'target',
    'pass/fail',
  ];
  const lines = rows.map((row) => {
    const vsOld = row.old ? row.api.rps / row.old.rps : NaN;
    const target = [`new ÷ old ≥ ${COMPARE_MIN_RATIO}`, describeTarget(row.scenario.target)].filter((t) => t !== '—').join(', ');
    let verdictText = verdict(row);
    if (!row.error && (row.old?.errors ?? 0) > 0) verdictText = 'FAIL (errors)';
    if (!row.error && vsOld < COMPARE_MIN_RATIO) verdictText = verdictText === 'pass' ? 'FAIL (new ÷ old)' : `${verdictText}, new ÷ old`;
    return [
      row.scenario.name,
      fmt(row.old?.rps),
      fmt(row.api?.rps),
      fmt(vsOld, 2),
      `${fmt(row.old?.p50)} / ${fmt(row.old?.p99)}`,
      `${fmt(row.api?.p50)} / ${fmt(row.api?.p99)}`,
      `${fmt(row.old?.cpuUsPerRequest)} / ${fmt(row.api?.cpuUsPerRequest)}`,
      fmt(row.baseline?.rps),
      fmt(row.ratio, 2),
      target,
      verdictText,
    ];
  });
  return markdownTable(header, lines, 8);
}

/** The webhook throughput rows, and the billing row of the reordered run. */
export function formatWebhookTables(webhooks, withEndpoints, disordered) {
  const webhookRow = (name, w) => {
    const pass = w.appliedPerSecond >= 1000 && w.lost === 0 && w.doubled === 0 && w.rejected === 0;
    return `| ${name} | ${w.events} | ${w.acceptedPerSecond} | ${w.appliedPerSecond} | ${w.lost} | ${w.doubled} | ≥ 1000/s, 0 lost, 0 doubled | ${pass ? 'pass' : 'FAIL'} |\n`;
  };
  const billing = disordered.billing;
  const billedAsInOrder =
    billing.minutes === billing.inOrderMinutes && billing.cents === billing.inOrderCents && billing.ledgerCents === billing.cents;
  return (
    `| webhooks | events | accepted/s | applied end to end/s | lost | doubled | target | pass/fail |\n` +
    `|---|--:|--:|--:|--:|--:|---|---|\n` +
    webhookRow('signed LiveKit webhooks', webhooks) +
    webhookRow('signed LiveKit webhooks, 10 customer endpoints (1 answering after 5 s)', withEndpoints) +
    webhookRow('signed LiveKit webhooks, 10 % reordered and 10 % sent twice, rooms finished', disordered) +
    '\n' +
    `| events applied, 10 % reordered and 10 % sent twice | events/s applied | minutes billed | in-order minutes | cents billed | in-order cents | ledger cents | target | pass/fail |\n` +
    `|---|--:|--:|--:|--:|--:|--:|---|---|\n` +
    `| ${disordered.events} signed LiveKit events | ${disordered.appliedPerSecond} | ${billing.minutes} | ${billing.inOrderMinutes} | ` +
    `${billing.cents} | ${billing.inOrderCents} | ${billing.ledgerCents} | equal to the in-order run, ≥ 1000/s | ` +
    `${billedAsInOrder && disordered.appliedPerSecond >= 1000 ? 'pass' : 'FAIL'} |\n\n`
  );
}

/** The customer webhook latency row of one run, and the rows splitting it into stages (per room, the slowest fast endpoint). */
export function formatLatencyRows(name, w, judged = true) {
  const latency = w.latency;
  const pass = latency && latency.missing === 0 && latency.p99 !== null && latency.p99 <= 1000;
  const verdict = judged ? `p99 ≤ 1000 ms | ${pass ? 'pass' : 'FAIL'}` : '— | —';
  const samples = latency?.samples ?? 0;
  return (
    `| LiveKit event sent → room.started received by a fast endpoint, ${name} | ` +
    `${samples} | ${latency?.p50 ?? '—'} | ${latency?.p95 ?? '—'} | ${latency?.p99 ?? '—'} | ${latency?.missing ?? '—'} | ${verdict} |\n` +
    `| of which: outbox row written → delivered, recorded in the database (all nine endpoints) | ${samples} | ` +
    `${latency?.outboxP50 ?? '—'} | — | ${latency?.outboxP99 ?? '—'} | — | — | — |\n` +
    Object.entries(latency?.stages ?? {})
      .map(
        ([stage, { p50, p95, p99 }]) =>
          `| stage (per room, slowest fast endpoint): ${STAGE_NAMES[stage] ?? stage} | ${samples} | ${p50} | ${p95 ?? '—'} | ${p99} | — | — | — |\n`,
      )
      .join('')
  );
}

/** Whether a webhook run's streams met the target: p99 committed → received, each stream exactly its organization's log. */
export function streamsPass(w) {
  const s = w.streams;
  return (
    s !== null &&
    s.p99 !== null &&
    s.p99 <= STREAM_TARGET_P99_MS &&
    s.lost + s.doubled + s.foreign + s.outOfOrder + s.behind === 0 &&
    w.lost + w.doubled + w.rejected === 0
  );
}

/** The event stream rows: each a webhook run (LiveKit events through the real path) with streams open. */
export function formatStreamRows(rows) {
  const n = (value) => (value === null || value === undefined ? '—' : Math.round(value).toLocaleString('en-US'));
  const header = [
    'event streams (signed LiveKit webhooks through the real path)',
    'LiveKit events; applied/s',
    'events streamed',
    'events/s',
    'deliveries to streams',
    'deliveries/s',
    'committed → received p50 / p99 / max ms',
    'lost / doubled / foreign / out of order / behind',
    'reconnections; opens refused',
    'target',
    'pass/fail',
  ];
  const lines = rows.map(({ name, result: w }) => {
    const s = w.streams;
    return [
      name,
      `${n(w.events)}; ${n(w.appliedPerSecond)}`,
      n(s?.events),
      n(s?.eventsPerSecond),
      n(s?.deliveries),
      n(s?.deliveriesPerSecond),
      `${n(s?.p50)} / ${n(s?.p99)} / ${n(s?.max)}`,
      s ? `${s.lost} / ${s.doubled} / ${s.foreign} / ${s.outOfOrder} / ${s.behind}` : '—',
      s ? `${s.reconnections}; ${s.refused}` : '—',
      `p99 ≤ ${STREAM_TARGET_P99_MS} ms, 0 lost, 0 doubled`,
      streamsPass(w) ? 'pass' : 'FAIL',
    ];
  });
  return `${markdownTable(header, lines, 8)}\n\n`;
}
