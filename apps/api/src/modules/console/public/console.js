// The console: one page over the public API, and the example for customers building their own dashboard.
// Every call below is a documented endpoint called with the pasted API key; the page knows nothing else.
// Longer than ~300 lines on purpose: the whole console is one module a customer reads top to bottom and
// copies, with no bundler and no imports to follow.

const KEY_STORAGE = 'translation-rooms.console.api-key';
/** Creating a room sends no event (room.started comes with its first participant): the newest rooms are polled. */
const NEW_ROOMS_POLL_MS = 1000;
/** Everything else follows the event stream; this poll only repairs what a missed event would leave stale. */
const REFRESH_MS = 5000;
const TRANSCRIPT_POLL_MS = 2000;
const USAGE_REFRESH_MS = 60_000;
const USAGE_DAYS = 14;
const FEED_LENGTH = 200;
const FIRST_RETRY_MS = 500;
const LONGEST_RETRY_MS = 30_000;
/** The event catalog (extensions.md). `EventSource` dispatches each `event:` type by name, so each is listened to. */
const EVENT_TYPES = [
  'room.started',
  'room.ended',
  'room.usage_corrected',
  'participant.joined',
  'participant.left',
  'translator.joined',
  'translator.left',
  'transcript.ready',
  'credit.purchased',
  'credit.low',
  'credit.exhausted',
];

/** @param {string} testid */
const $ = (testid) => /** @type {HTMLElement} */ (document.querySelector(`[data-testid="${testid}"]`));

class ApiFailure extends Error {
  /** @param {number} status @param {string} detail */
  constructor(status, detail) {
    super(`${status}: ${detail}`);
    this.status = status;
  }
}

/** The signed-in state; null when signed out. */
let session = null;

function newSession(key) {
  return {
    key,
    currency: 'usd',
    timers: [],
    /** Rooms shown, by id: `{summary, detail, element, body, shown}`. */
    rooms: new Map(),
    activeRooms: null,
    readAllRooms: true,
    roomsToRead: new Set(),
    selected: null,
    transcriptShown: '',
    stream: { source: null, lastEventId: null, retryMs: FIRST_RETRY_MS, timer: null, seen: new Set() },
  };
}

async function api(path, init = {}) {
  const key = session?.key;
  const response = await fetch(path, { ...init, headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } });
  const body = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const detail =
      typeof body?.detail === 'string' ? body.detail : Array.isArray(body?.detail) ? body.detail.map((d) => d.msg).join('; ') : '';
    const failure = new ApiFailure(response.status, detail || response.statusText);
    if (response.status === 401 && session?.key === key) signOut(`The API refused the key (${failure.message}).`);
    throw failure;
  }
  return body;
}

/** Every page of a list (at most `pages` of 200). */
async function allPages(path, pages = 5) {
  const items = [];
  let offset = 0;
  for (let page = 0; page < pages && offset !== null; page += 1) {
    const separator = path.includes('?') ? '&' : '?';
    const body = await api(`${path}${separator}limit=200&offset=${offset}`);
    items.push(...body.items);
    offset = body.next_offset;
  }
  return items;
}

/** Runs `task` one at a time; calls made meanwhile run it once more afterwards. */
function serial(task) {
  let running = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await task();
      } while (again && session);
    })().finally(() => (running = null));
    return running;
  };
}

/** Runs a refresh of one section, showing its failure in the section instead of throwing. */
async function guard(section, task) {
  const box = $(`${section}-error`);
  try {
    await task();
    box.hidden = true;
  } catch (error) {
    if (!session) return;
    box.textContent = error instanceof ApiFailure ? `The API answered ${error.message}` : `Could not reach the API (${error.message}).`;
    box.hidden = false;
  }
}

// Building the page: elements with text nodes only, never markup from the API.
function el(tag, attributes = {}, children = []) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes))
    if (value !== null && value !== undefined) element.setAttribute(name, String(value));
  element.append(...children.filter((child) => child !== null));
  return element;
}
const timeOf = (iso) => el('time', { datetime: iso }, [new Date(iso).toLocaleTimeString()]);
const money = (cents) => new Intl.NumberFormat(undefined, { style: 'currency', currency: session.currency }).format(cents / 100);
const startedMinutes = (since) => Math.max(1, Math.ceil((Date.now() - Date.parse(since)) / 60_000));

function inHoursAndMinutes(ms) {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

// Credit and burn.
async function refreshBurn() {
  const burn = await api('/v1/billing/burn');
  $('balance').textContent = money(burn.balance_cents);
  $('open-connections').textContent = String(burn.open_connections);
  $('open-connections').dataset.value = String(burn.open_connections);
  $('cents-per-minute').textContent = `${money(burn.cents_per_minute)} a minute`;
  const runsOut = $('runs-out-at');
  runsOut.dataset.value = burn.runs_out_at ?? '';
  runsOut.replaceChildren(
    ...(burn.runs_out_at === null
      ? ['not while no connection is open']
      : [
          el('time', { datetime: burn.runs_out_at }, [new Date(burn.runs_out_at).toLocaleString()]),
          ` (in ${inHoursAndMinutes(Date.parse(burn.runs_out_at) - Date.now())})`,
        ]),
  );
}

// Live rooms: the active ones, and the newest rooms still waiting for their first participant.
async function readRooms() {
  const s = session;
  const all = s.readAllRooms || s.activeRooms === null;
  const wanted = new Set(s.roomsToRead);
  s.readAllRooms = false;
  s.roomsToRead.clear();
  try {
    const [newest, active] = await Promise.all([api('/v1/rooms?limit=20'), all ? allPages('/v1/rooms?status=active') : s.activeRooms]);
    s.activeRooms = active;
    const shown = new Map(active.map((room) => [room.id, room]));
    for (const room of newest.items) {
      if (room.status === 'ended') shown.delete(room.id);
      else shown.set(room.id, room);
    }
    const read = [...shown.keys()].filter((id) => all || wanted.has(id) || !s.rooms.get(id)?.detail);
    const details = await Promise.all(read.map((id) => api(`/v1/rooms/${id}`).catch((e) => (e.status === 404 ? null : Promise.reject(e)))));
    if (session !== s) return;
    renderRooms(shown, new Map(read.map((id, i) => [id, details[i]])));
  } catch (error) {
    s.readAllRooms ||= all;
    for (const id of wanted) s.roomsToRead.add(id);
    throw error;
  }
}
let refreshRooms = () => Promise.resolve();

function renderRooms(shown, details) {
  const { rooms } = session;
  for (const [id, entry] of rooms) {
    if (shown.has(id)) continue;
    entry.element.remove();
    rooms.delete(id);
  }
  const list = $('live-rooms');
  let previous = null;
  for (const summary of [...shown.values()].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))) {
    let entry = rooms.get(summary.id);
    if (!entry) {
      entry = roomEntry(summary);
      rooms.set(summary.id, entry);
    }
    entry.summary = summary;
    if (details.get(summary.id)) entry.detail = details.get(summary.id);
    const place = previous ? previous.nextSibling : list.firstChild;
    if (place !== entry.element) list.insertBefore(entry.element, place);
    previous = entry.element;
    renderRoom(entry);
  }
  $('no-live-rooms').hidden = rooms.size > 0;
}

function roomEntry(room) {
  const button = el('button', { type: 'button', 'data-testid': 'show-transcript', 'aria-pressed': 'false' }, ['Transcript']);
  button.addEventListener('click', () => selectRoom(room.id));
  const body = el('div', { class: 'room-body' });
  const heading = el('div', { class: 'room-head' }, [el('h3', {}, [room.name]), button]);
  const element = el('li', { 'data-testid': 'room', 'data-room-id': room.id }, [heading, body]);
  return { summary: room, detail: null, element, body, shown: '' };
}

function renderRoom(entry) {
  const { summary, detail } = entry;
  const participants = detail?.participants ?? [];
  // Minutes of open connections grow with the clock: the minute is part of what is compared.
  const shown = JSON.stringify([summary, participants, Math.floor(Date.now() / 60_000)]);
  entry.element.dataset.status = summary.status;
  if (shown === entry.shown) return;
  entry.shown = shown;
  const state =
    summary.status === 'active' ? `live since ${new Date(summary.started_at).toLocaleTimeString()}` : 'waiting for its first participant';
  const totals = `${summary.total_connection_minutes} connection minutes metered, ${money(summary.total_charged_cents)}`;
  const rows = participants.map((p) =>
    el('tr', { 'data-testid': 'participant', 'data-identity': p.participant_identity, 'data-connected': String(p.left_at === null) }, [
      el('th', { scope: 'row' }, [p.participant_identity]),
      el('td', {}, [p.participant_kind ?? '—']),
      el('td', {}, [(p.languages ?? []).join(', ') || '—']),
      el('td', {}, [timeOf(p.joined_at)]),
      el('td', {}, [p.left_at === null ? 'connected' : timeOf(p.left_at)]),
      el('td', { 'data-testid': 'participant-minutes' }, [
        p.connection_minutes === null ? `${startedMinutes(p.joined_at)} so far` : String(p.connection_minutes),
      ]),
      el('td', {}, [p.charged_cents === null ? '—' : money(p.charged_cents)]),
    ]),
  );
  const headers = ['Who', 'Kind', 'Languages', 'Joined', 'Left', 'Minutes', 'Charged'].map((h) => el('th', { scope: 'col' }, [h]));
  entry.body.replaceChildren(
    el('p', { 'data-testid': 'room-state' }, [`${state}; ${totals}`]),
    rows.length === 0
      ? el('p', { class: 'hint' }, ['Nobody has joined yet.'])
      : el('table', { 'data-testid': 'participants' }, [
          el('caption', {}, [`Connections to ${summary.name}`]),
          el('thead', {}, [el('tr', {}, headers)]),
          el('tbody', {}, rows),
        ]),
  );
}

// A room's transcript, growing while the room is live.
function selectRoom(id) {
  const s = session;
  const entry = s.rooms.get(id);
  if (!entry) return;
  s.selected = { id, name: entry.summary.name };
  s.transcriptShown = '';
  for (const [otherId, other] of s.rooms) other.element.querySelector('button').setAttribute('aria-pressed', String(otherId === id));
  $('transcript-room').textContent = `Room ${entry.summary.name}: what was said, in spoken order, with its translation.`;
  $('transcript').replaceChildren();
  void guard('transcript', refreshTranscript);
}

async function readTranscript() {
  const s = session;
  const selected = s?.selected;
  if (!selected) return;
  const segments = await allPages(`/v1/rooms/${selected.id}/transcript`, 10);
  const shown = JSON.stringify(segments);
  if (session !== s || s.selected !== selected || shown === s.transcriptShown) return;
  s.transcriptShown = shown;
  $('transcript').replaceChildren(
    ...segments.map((segment) =>
      el('li', { 'data-testid': 'transcript-segment', 'data-segment-id': segment.id }, [
        timeOf(segment.started_at),
        ' ',
        el('strong', {}, [segment.participant_identity]),
        ' ',
        el('span', { lang: segment.language }, [segment.text]),
        segment.translation
          ? el('span', { class: 'translation', lang: segment.translation.language }, [` → ${segment.translation.text}`])
          : null,
      ]),
    ),
  );
}
let refreshTranscript = () => Promise.resolve();

// Usage of the last days, as bars.
async function refreshUsage() {
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const end = new Date();
  end.setHours(24, 0, 0, 0);
  const start = new Date(end);
  start.setDate(start.getDate() - USAGE_DAYS);
  const query = new URLSearchParams({ starts_after: start.toISOString(), ends_before: end.toISOString(), granularity: 'day', timezone });
  const usage = await api(`/v1/usage/overview?${query}`);
  const { total_minutes: minutes, total_rooms: roomCount, total_participants: people } = usage.summary;
  $('usage-summary').textContent = `${minutes} connection minutes in ${roomCount} rooms, ${people} participants (${timezone}).`;
  $('usage-chart').replaceChildren(barChart(usage.buckets));
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attributes = {}, children = []) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

function barChart(buckets) {
  const width = 700;
  const height = 180;
  const base = height - 24;
  const top = 16;
  const slot = width / Math.max(1, buckets.length);
  const most = Math.max(1, ...buckets.map((b) => b.minutes));
  const bars = buckets.map((bucket, i) => {
    const day = new Date(bucket.bucket).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
    const barHeight = bucket.minutes === 0 ? 0 : Math.max(2, ((base - top) * bucket.minutes) / most);
    const label = `${day}: ${bucket.minutes} minutes, ${bucket.sessions} rooms`;
    return svg('g', {}, [
      svg(
        'rect',
        {
          x: i * slot + slot * 0.15,
          y: base - barHeight,
          width: slot * 0.7,
          height: barHeight,
          class: 'bar',
          'data-testid': 'usage-bar',
          'data-bucket': bucket.bucket,
          'data-minutes': bucket.minutes,
        },
        [svg('title', {}, [label])],
      ),
      svg('text', { x: i * slot + slot / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis' }, [
        String(new Date(bucket.bucket).getDate()),
      ]),
    ]);
  });
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'usage-summary', class: 'chart' }, [
    svg('line', { x1: 0, x2: width, y1: base, y2: base, class: 'axis-line' }),
    svg('text', { x: 4, y: 12, class: 'axis' }, [`${most} min`]),
    ...bars,
  ]);
}

// The event stream, through a single-use ticket (EventSource cannot send the Authorization header).
function setStreamStatus(state, text) {
  const status = $('stream-status');
  status.dataset.state = state;
  status.textContent = text;
}

async function openStream() {
  const s = session;
  const stream = s.stream;
  stream.timer = null;
  setStreamStatus('connecting', 'connecting…');
  let ticket;
  try {
    ticket = (await api('/v1/events/stream-tickets', { method: 'POST' })).ticket;
  } catch (error) {
    if (session !== s) return;
    if (error instanceof ApiFailure && error.status === 403) return setStreamStatus('refused', `refused: ${error.message}`);
    return retryStream(`no ticket: ${error.message}`);
  }
  if (session !== s) return;
  const query = new URLSearchParams({ ticket });
  // Reopened after the last event seen: the stream replays everything after it, then goes live.
  if (stream.lastEventId !== null) query.set('last_event_id', stream.lastEventId);
  const source = new EventSource(`/v1/events/stream?${query}`);
  stream.source = source;
  source.addEventListener('open', () => {
    stream.retryMs = FIRST_RETRY_MS;
    setStreamStatus('live', 'live');
    // Without a cursor the stream starts from now: the log's newest events, read once it is open, fill
    // what came before (the feed drops an event it already shows).
    if (stream.lastEventId === null) {
      void api('/v1/events?limit=50').then(
        (page) => session === s && page.items.forEach((event) => showEvent(event, null)),
        () => undefined,
      );
    }
  });
  for (const type of EVENT_TYPES) source.addEventListener(type, (message) => received(message));
  source.addEventListener('reset', (message) => {
    stream.lastEventId = message.lastEventId || stream.lastEventId;
    setStreamStatus('live', 'live (older events were no longer kept)');
    refreshEverything();
  });
  source.addEventListener('error', () => {
    if (stream.source !== source) return;
    // The ticket was used up: the browser's own retry would be refused, so the page reconnects itself.
    source.close();
    stream.source = null;
    retryStream('the connection was cut');
  });
}

function retryStream(reason) {
  const stream = session.stream;
  setStreamStatus('reconnecting', `reconnecting (${reason})`);
  stream.timer = setTimeout(() => void openStream(), stream.retryMs);
  stream.retryMs = Math.min(stream.retryMs * 2, LONGEST_RETRY_MS);
}

function received(message) {
  if (!session) return;
  if (message.lastEventId) session.stream.lastEventId = message.lastEventId;
  const event = JSON.parse(message.data);
  showEvent(event, message.lastEventId);
  react(event);
}

function showEvent(event, cursor) {
  const { seen } = session.stream;
  if (seen.has(event.id)) return;
  seen.add(event.id);
  const data = event.data ?? {};
  // participant.* say `room`, translator.* `room_name`, room.* carry the room itself.
  const room = data.room ?? data.room_name ?? (event.type.startsWith('room.') ? data.name : null);
  const who = data.participant_identity ? `${data.participant_identity}${data.kind ? ` (${data.kind})` : ''}` : null;
  const about = [room, who].filter(Boolean).join(' · ');
  const item = el('li', { 'data-testid': 'event', 'data-event-id': event.id, 'data-type': event.type, 'data-cursor': cursor }, [
    timeOf(event.created_at),
    ' ',
    el('code', {}, [event.type]),
    about ? ` ${about}` : null,
  ]);
  // Newest first, by the stream's cursor (events of one instant keep their commit order); the backfilled
  // log (no cursor) may come after newer live events, and is placed by time, after events of its instant.
  const feed = $('event-feed');
  const isNewer = (li) =>
    cursor && li.dataset.cursor
      ? Number(li.dataset.cursor) > Number(cursor)
      : Date.parse(li.querySelector('time').dateTime) >= Date.parse(event.created_at);
  const later = [...feed.children].find((li) => !isNewer(li));
  feed.insertBefore(item, later ?? null);
  while (feed.children.length > FEED_LENGTH) feed.lastElementChild.remove();
}

/** What an event changes on the page. */
function react(event) {
  const data = event.data ?? {};
  const roomId = data.room_id ?? (event.type.startsWith('room.') ? data.id : null);
  if (event.type.startsWith('credit.')) {
    void guard('credit', refreshBurn);
    return;
  }
  if (event.type === 'transcript.ready') {
    if (session.selected?.id === roomId) void guard('transcript', refreshTranscript);
    return;
  }
  if (roomId) session.roomsToRead.add(roomId);
  if (event.type === 'room.ended' || event.type === 'room.usage_corrected') {
    session.readAllRooms = true;
    void guard('usage', refreshUsage);
  } else if (event.type === 'room.started') {
    session.readAllRooms = true;
  }
  void guard('rooms', refreshRooms);
  void guard('credit', refreshBurn);
}

function refreshEverything() {
  session.readAllRooms = true;
  void guard('rooms', refreshRooms);
  void guard('credit', refreshBurn);
  void guard('usage', refreshUsage);
  void guard('transcript', refreshTranscript);
}

// Signing in and out.
async function signIn(key) {
  session = newSession(key);
  refreshRooms = serial(readRooms);
  refreshTranscript = serial(readTranscript);
  let me;
  try {
    me = await api('/v1/users/me');
  } catch (error) {
    if (session?.key === key) signOut(`The API refused the key (${error.message}).`);
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  const credit = await api('/v1/billing/credit').catch(() => null);
  if (credit) session.currency = credit.currency;
  document.getElementById('key-hint').textContent = `${key.slice(0, 8)}…${key.slice(-4)} (${me.email})`;
  $('signed-in').hidden = false;
  document.getElementById('sign-in').hidden = true;
  document.getElementById('dashboard').hidden = false;
  refreshEverything();
  void openStream();
  const s = session;
  let ticks = 0;
  s.timers.push(
    setInterval(() => {
      ticks += 1;
      if (ticks % (REFRESH_MS / NEW_ROOMS_POLL_MS) === 0) s.readAllRooms = true;
      void guard('rooms', refreshRooms);
    }, NEW_ROOMS_POLL_MS),
    setInterval(() => void guard('credit', refreshBurn), REFRESH_MS),
    setInterval(() => {
      // Polled while its room is live; after that, transcript.ready says when it is complete.
      if (s.selected && s.rooms.has(s.selected.id)) void guard('transcript', refreshTranscript);
    }, TRANSCRIPT_POLL_MS),
    setInterval(() => void guard('usage', refreshUsage), USAGE_REFRESH_MS),
  );
}

function signOut(message) {
  const s = session;
  session = null;
  sessionStorage.removeItem(KEY_STORAGE);
  if (s) {
    for (const timer of s.timers) clearInterval(timer);
    clearTimeout(s.stream.timer);
    s.stream.source?.close();
  }
  for (const id of ['live-rooms', 'event-feed', 'transcript', 'usage-chart']) $(id).replaceChildren();
  for (const id of ['balance', 'open-connections', 'cents-per-minute', 'runs-out-at', 'usage-summary']) $(id).textContent = '…';
  $('transcript-room').textContent = 'Choose “Transcript” on a room.';
  $('no-live-rooms').hidden = false;
  setStreamStatus('closed', 'not connected');
  $('signed-in').hidden = true;
  document.getElementById('dashboard').hidden = true;
  document.getElementById('sign-in').hidden = false;
  const error = $('sign-in-error');
  error.textContent = message ?? '';
  error.hidden = !message;
}

function start(key) {
  signIn(key).catch((error) => signOut(`The console stopped: ${error.message}`));
}

$('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('api-key'));
  const key = input.value.trim();
  input.value = '';
  $('sign-in-error').hidden = true;
  start(key);
});
$('sign-out').addEventListener('click', () => signOut(null));
const stored = sessionStorage.getItem(KEY_STORAGE);
if (stored) start(stored);
