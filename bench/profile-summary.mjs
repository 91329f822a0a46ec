// Reads a V8 .cpuprofile of the API under load and says where the time went, per request:
// self time by layer (package, Node's own code, or our source file) and the inclusive time of our
// own functions (synchronous part: what a layer costs on the CPU, not how long a request waits).
import path from 'node:path';

/** The layer a frame belongs to: a package, a part of Node, V8's own work, or one of our files. */
export function layerOf({ url, functionName }) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8: garbage collection';
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(program)') return 'V8/native: (program)';
    return `V8 builtins: ${functionName || '(anonymous)'}`;
  }
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) {
    const name = url.slice('node:'.length).replace(/^internal\//, '');
    if (/^(_http|http)/.test(name)) return 'node: http';
    if (/^(net|stream|streams\/|tcp|dns)/.test(name)) return 'node: net and streams';
    if (/^(timers|process\/task_queues|async_hooks|process\/promises)/.test(name)) return 'node: timers, promises, ticks';
    return 'node: other';
  }
  const ours = url.indexOf('/apps/api/src/');
  if (ours >= 0) return `ours: ${url.slice(ours + '/apps/api/src/'.length).replace(/\.js$/, '')}`;
  return path.basename(url);
}

/** Node's, V8's and the tiny helper packages' frames, whose time belongs to the layer that called them. */
const isPlumbing = (layer) =>
  layer.startsWith('node: ') ||
  layer.startsWith('V8 builtins') ||
  layer === 'V8/native: (program)' ||
  [
    'parseurl',
    'on-finished',
    'content-type',
    'type-is',
    'media-typer',
    'mime-types',
    'depd',
    'debug',
    'ee-first',
    'encodeurl',
    'vary',
  ].includes(layer);

/**
 * The layer a sample's time is owed to: the innermost frame above it that is a package or our code, so
 * that Node's http, streams and builtins count for the layer that called them (GC stays apart).
 */
function ownerOf(id, byId, parentOf) {
  const leaf = layerOf(byId.get(id).callFrame);
  if (leaf === 'V8: garbage collection' || leaf === '(idle)') return leaf;
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const layer = layerOf(byId.get(at).callFrame);
    if (!isPlumbing(layer)) return layer;
  }
  return `${leaf} (no JS caller: socket reads, writes and HTTP parsing)`;
}

/**
 * Self time per layer and inclusive time of our functions, in microseconds per request.
 * `requests` is the number of requests answered while the profile ran.
 */
export function summarizeProfile(profile, requests) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const layers = new Map();
  const owners = new Map();
  const ourFunctions = new Map();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    const layer = layerOf(node.callFrame);
    layers.set(layer, (layers.get(layer) ?? 0) + us);
    if (layer !== '(idle)') busyUs += us;
    const owner = ownerOf(id, byId, parentOf);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    // inclusive: credit each of our functions on the stack once per sample
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at).callFrame;
      const owner = layerOf(frame);
      if (!owner.startsWith('ours: ')) continue;
      const name = `${owner.slice('ours: '.length)}: ${frame.functionName || '(anonymous)'}`;
      if (seen.has(name)) continue;
      seen.add(name);
      ourFunctions.set(name, (ourFunctions.get(name) ?? 0) + us);
    }
  }
  const perRequest = (us) => us / Math.max(1, requests);
  const sorted = (map) => [...map].sort((x, y) => y[1] - x[1]);
  return {
    requests,
    busyUsPerRequest: perRequest(busyUs),
    owners: sorted(owners)
      .filter(([layer]) => layer !== '(idle)')
      .map(([layer, us]) => ({ layer, usPerRequest: perRequest(us), share: us / busyUs })),
    layers: sorted(layers)
      .filter(([layer]) => layer !== '(idle)')
      .map(([layer, us]) => ({ layer, usPerRequest: perRequest(us), share: us / busyUs })),
    ourFunctions: sorted(ourFunctions).map(([name, us]) => ({ name, usPerRequest: perRequest(us), share: us / busyUs })),
  };
}

/** The summary as two markdown tables, the top `limit` lines of each. */
export function formatProfileSummary(title, summary, limit = 14) {
  const fmt = (n) => n.toFixed(1);
  const pct = (n) => `${(n * 100).toFixed(1)} %`;
  return (
    `#### ${title}: ${summary.requests} requests, ${fmt(summary.busyUsPerRequest)} µs of API CPU per request\n\n` +
    `| layer (its own time and the Node/V8 work it called) | µs / request | share |\n|---|--:|--:|\n` +
    summary.owners
      .slice(0, limit)
      .map((l) => `| ${l.layer} | ${fmt(l.usPerRequest)} | ${pct(l.share)} |`)
      .join('\n') +
    `\n\n| layer (self time only) | µs / request | share |\n|---|--:|--:|\n` +
    summary.layers
      .slice(0, limit)
      .map((l) => `| ${l.layer} | ${fmt(l.usPerRequest)} | ${pct(l.share)} |`)
      .join('\n') +
    `\n\n| our function (inclusive, synchronous part) | µs / request | share |\n|---|--:|--:|\n` +
    summary.ourFunctions
      .slice(0, limit)
      .map((f) => `| ${f.name} | ${fmt(f.usPerRequest)} | ${pct(f.share)} |`)
      .join('\n') +
    '\n\n'
  );
}
