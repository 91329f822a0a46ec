/**
 * OpenAI's realtime translation WebSocket protocol (`wss://api.openai.com/v1/realtime/translations?model=gpt-realtime-translate`):
 * one continuous session, no turns and no `response.create`; audio in as base64 24 kHz mono PCM16 in 200 ms
 * chunks, translated audio and both transcripts out as deltas while the speaker talks. The event types are
 * the installed `openai` package's (`RealtimeTranslation*`), which carry the API reference's words on each field.
 */
import type { RealtimeTranslationClientEvent, RealtimeTranslationServerEvent } from 'openai/resources/realtime/realtime';

/** The audio both ways: 24 kHz mono PCM16 little-endian; the engine consumes 200 ms frames. */
export const REALTIME_SAMPLE_RATE = 24_000;
export const REALTIME_CHUNK_MS = 200;
export const REALTIME_MODEL = 'gpt-realtime-translate';

/**
 * What the client sends: `session.update`, `session.input_audio_buffer.append` (the reference: "Keep appending
 * silence while the session is active"), and `session.close`, after which the server flushes the input, sends
 * what remains translated, then `session.closed`.
 */
export type TranslationClientEvent = RealtimeTranslationClientEvent;

/**
 * What the server sends: `session.created`/`updated`/`closed`, `error`, and the deltas. Deltas carry
 * `elapsed_ms` when the service has it: "timing metadata for stream alignment, derived from the translation
 * frame", advancing in 200 ms steps of the input audio.
 */
export type TranslationServerEvent = RealtimeTranslationServerEvent;
