/**
 * One example per request and answer schema of the OpenAPI document, by schema name. The OpenAPI
 * test validates each against its own schema, so an example cannot drift from what the API sends.
 */
const ROOM_ID = '2f6d0d2e-4c55-4d8e-9c1e-6f0f5a0b7c11';
const USER_ID = '9a3c6b1e-0f2d-4e4b-8a57-3d2f1c0b9e88';
const KEY_ID = '5b1e7c2a-8d3f-4a6b-9e0c-1f2a3b4c5d6e';
const INVITE_CODE = 'QmFzZTY0dXJsUmFuZG9tMTI.c2lnbmF0dXJlLW9mLXRoZS1jb2RlLWJ5LWhtYWMtc2hhMjU2';

const glossary = {
  id: '3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b',
  name: 'Product names',
  default: true,
  entry_count: 42,
  languages: ['de', 'en'],
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T10:05:00.000Z',
};

const glossaryEntryInput = {
  terms: { en: 'Tenmeter', de: 'Zehnmeter' },
  case_sensitive: false,
  sounds_like: { en: ['ten meter', 'ten metre'] },
};

const participant = {
  id: 17,
  participant_identity: 'alice',
  participant_kind: 'member',
  languages: ['en'],
  joined_at: '2026-03-02T09:00:05.000Z',
  left_at: '2026-03-02T09:12:40.000Z',
  connection_minutes: 13,
  charged_cents: 39,
};

const room = {
  id: ROOM_ID,
  name: 'room-1a4711fd1363',
  sid: 'RM_x3Kd9QpL2mNb',
  status: 'ended',
  streaming_mode: 'dual',
  started_at: '2026-03-02T09:00:05.000Z',
  ended_at: '2026-03-02T09:12:41.000Z',
  total_connection_minutes: 39,
  total_charged_cents: 143,
  created_at: '2026-03-02T08:59:30.000Z',
  created_by: USER_ID,
};

const apiKey = {
  id: KEY_ID,
  name: 'CI',
  key_prefix: 'trk_3LrE',
  key_last4: 'Z15a',
  created_at: '2026-03-01T10:00:00.000Z',
  last_used_at: null,
  created_by: 'ada@example.com',
  scopes: ['rooms:read', 'rooms:write'],
  expires_at: '2027-03-01T10:00:00.000Z',
};

const webhookEndpoint = {
  id: '0c4e5f6a-7b8c-4d9e-8f01-23456789abcd',
  url: 'https://example.com/hooks/translation',
  events: ['room.started', 'room.ended'],
  description: 'ops dashboard',
  enabled: true,
  created_at: '2026-03-01T10:00:00.000Z',
};

export const SCHEMA_EXAMPLES: Record<string, unknown> = {
  LanguageView: { code: 'de', name: 'German' },
  CreateRoomDto: { room_name: 'weekly-sync', streaming_mode: 'dual' },
  CreatedRoomView: { id: ROOM_ID, room: 'weekly-sync', url: 'wss://rtc.example.com', streaming_mode: 'dual' },
  RoomView: room,
  RoomDetailView: {
    ...room,
    participants: [
      participant,
      { ...participant, id: 18, participant_identity: 'bruno', languages: ['de'] },
      { ...participant, id: 19, participant_identity: 'translator', participant_kind: 'translator', languages: null, charged_cents: 65 },
    ],
  },
  JoinTokenDto: { identity: 'alice', name: 'Alice', languages: ['en'] },
  InviteJoinDto: { name: 'Guest from Berlin', languages: ['de'] },
  JoinTokenView: {
    token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl',
    url: 'wss://rtc.example.com',
    room: 'weekly-sync',
    identity: 'alice',
    languages: ['en'],
    streaming_mode: 'dual',
    expires_at: '2026-03-02T15:00:05.000Z',
  },
  MintInviteDto: { expires_in_seconds: 86400, max_uses: 5 },
  MintedInviteView: { invite_code: INVITE_CODE, expires_at: '2026-03-03T09:00:00.000Z', max_uses: 5 },
  InvitePreviewView: {
    active_languages: [
      { code: 'en', name: 'English' },
      { code: 'de', name: 'German' },
    ],
    mode: 'dual',
    languages_required: 1,
    room_status: 'active',
  },
  HistoryLineView: {
    kind: 'purchase',
    occurred_at: '2026-03-01T10:05:00.000Z',
    delta_cents: 5000,
    currency: 'usd',
    provider_reference: 'cs_test_a1B2c3',
  },
  CreditView: {
    credit_cents: 4857,
    low_balance_cents: 1000,
    currency: 'usd',
    rates: [
      { participant_class: 'participant', cents_per_minute: 3 },
      { participant_class: 'translator', cents_per_minute: 6 },
    ],
    min_topup_cents: 500,
    max_topup_cents: 100000,
  },
  CheckoutDto: { amount_cents: 5000 },
  CheckoutView: { checkout_id: 'cs_test_a1B2c3', checkout_url: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3' },
  AlertsDto: { low_balance_cents: 1000 },
  AlertsView: { low_balance_cents: 1000 },
  UsageOverviewView: {
    starts_after: '2026-03-01T00:00:00+01:00',
    ends_before: '2026-03-03T00:00:00+01:00',
    granularity: 'day',
    timezone: 'Europe/Berlin',
    summary: { total_minutes: 52, total_rooms: 2, total_participants: 5 },
    buckets: [
      { bucket: '2026-03-01T00:00:00.000+01:00', minutes: 13, avg_room_minutes: 13, sessions: 2 },
      { bucket: '2026-03-02T00:00:00.000+01:00', minutes: 39, avg_room_minutes: 39, sessions: 3 },
    ],
  },
  AuditEventView: {
    id: '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
    occurred_at: '2026-03-02T09:00:00.123Z',
    action: 'room.created',
    actor: { type: 'api_key', user_id: USER_ID, email: 'ada@example.com', api_key_id: KEY_ID, api_key_prefix: 'trk_AbCd' },
    target: { type: 'room', id: ROOM_ID },
    request_id: '0f1e2d3c-4b5a-4697-8877-665544332211',
    ip: '203.0.113.7',
    details: { room: 'weekly-sync', streaming_mode: null },
  },
  CreateApiKeyDto: { name: 'CI', scopes: ['rooms:read', 'rooms:write'], expires_at: '2027-03-01T10:00:00Z' },
  ApiKeyView: apiKey,
  CreatedApiKeyView: { ...apiKey, key: 'trk_3LrEljqchjyCBHxIfhTjUbZoUaObG2HsFoivZ15a' },
  BurnView: { balance_cents: 9412, open_connections: 3, cents_per_minute: 12, runs_out_at: '2026-03-01T23:04:00.000Z' },
  MemberView: {
    user_id: USER_ID,
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    role: 'developer',
    joined_at: '2026-03-01T09:58:00.000Z',
  },
  ChangeRoleDto: { role: 'developer' },
  CreateInvitationDto: { email: 'grace@example.com', role: 'viewer' },
  InvitationView: {
    id: '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
    email: 'grace@example.com',
    role: 'viewer',
    created_at: '2026-03-01T10:00:00.000Z',
    expires_at: '2026-03-08T10:00:00.000Z',
  },
  CreatedInvitationView: {
    id: '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
    email: 'grace@example.com',
    role: 'viewer',
    created_at: '2026-03-01T10:00:00.000Z',
    expires_at: '2026-03-08T10:00:00.000Z',
    invitation_token: 'inv_q2mB0aXtV3cN7pLr8sQw1eYz5uKj9hGf4dSa6oPi2nM',
  },
  AcceptInvitationDto: { invitation_token: 'inv_q2mB0aXtV3cN7pLr8sQw1eYz5uKj9hGf4dSa6oPi2nM' },
  MembershipView: {
    organization_id: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d',
    name: 'Acme',
    role: 'developer',
    joined_at: '2026-03-01T10:00:00.000Z',
  },
  UserView: {
    id: USER_ID,
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    image_url: '',
    created_at: '2026-03-01T09:58:00.000Z',
  },
  TranslationStatsView: {
    room_id: ROOM_ID,
    translator_present: false,
    translator_sessions: 1,
    first_joined_at: '2026-03-02T09:00:20.000Z',
    last_left_at: '2026-03-02T09:12:41.000Z',
    audio_seconds: 311.5,
    directions: [
      {
        direction: 'en>de',
        source_language: 'en',
        target_language: 'de',
        samples: 42,
        p50_ms: 820,
        p95_ms: 1430,
        audio_seconds: 160.2,
        last_reported_at: '2026-03-02T09:12:41.000Z',
      },
    ],
  },
  CreateWebhookEndpointDto: { url: webhookEndpoint.url, events: webhookEndpoint.events, description: webhookEndpoint.description },
  WebhookEndpointView: webhookEndpoint,
  CreatedWebhookEndpointView: { ...webhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  DeliveryView: {
    id: '7d8e9f00-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
    event_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    event_type: 'room.ended',
    status: 'delivered',
    attempts: 1,
    last_status_code: 200,
    last_error: null,
    next_attempt_at: null,
    delivered_at: '2026-03-02T09:12:42.000Z',
    created_at: '2026-03-02T09:12:41.000Z',
  },
  TranscriptSegmentView: {
    id: 'TR_AMkD3x-4f2a1c-7',
    participant_identity: 'alice',
    language: 'en',
    text: 'shall we start with the budget',
    translation: { language: 'de', text: 'sollen wir mit dem Budget beginnen' },
    started_at: '2026-03-02T09:01:12.480Z',
    ended_at: '2026-03-02T09:01:15.020Z',
    committed: { text: 'shall we start with the budge', revised_words: ['budge'], revised: true },
  },
  TranscriptSettingsDto: { store: true, retention_days: 30 },
  TranscriptSettingsView: { store: true, retention_days: 30 },
  CreateGlossaryDto: { name: glossary.name, default: true, entries: [glossaryEntryInput] },
  UpdateGlossaryDto: { name: glossary.name, default: false },
  GlossaryView: glossary,
  GlossaryEntryInput: glossaryEntryInput,
  GlossaryEntryView: {
    id: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
    ...glossaryEntryInput,
    do_not_translate: false,
    created_at: '2026-03-01T10:05:00.000Z',
  },
  EntryCountView: { entry_count: 42 },
  RoomGlossariesDto: { glossary_ids: [glossary.id] },
  RoomGlossariesView: { glossary_ids: [glossary.id] },
};
