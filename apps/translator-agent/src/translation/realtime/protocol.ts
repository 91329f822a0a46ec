/**
 * OpenAI's realtime translation WebSocket protocol (`wss://api.openai.com/v1/realtime/translations?model=gpt-realtime-translate`),
 * as its public reference documents it ("Realtime translation" guide; "Translation client events" and
 * "Translation server events" of the API reference): one continuous session, no turns and no
 * `response.create`; audio in as base64 24 kHz mono PCM16 in 200 ms chunks, translated audio and
 * both transcripts out as deltas while the speaker talks.
 */

/** The audio both ways: 24 kHz mono PCM16 little-endian; the engine consumes 200 ms frames. */
export const REALTIME_SAMPLE_RATE = 24_000;
export const REALTIME_CHUNK_MS = 200;
export const REALTIME_MODEL = 'gpt-realtime-translate';

export type TranslationClientEvent =
  | {
      type: 'session.update';
      event_id?: string;
      session: {
        audio?: {
          input?: { transcription?: { model: string } | null; noise_reduction?: { type: 'near_field' | 'far_field' } | null };
          output?: { language?: string };
        };
      };
    }
  | { type: 'session.input_audio_buffer.append'; event_id?: string; audio: string }
  /** The server flushes the input, sends what remains translated, then `session.closed`, and closes the socket. */
  | { type: 'session.close'; event_id?: string };

export interface TranslationSessionConfig {
  id: string;
  audio: { input?: { transcription?: { model: string } | null }; output?: { language?: string } };
  expires_at?: number;
}

export type TranslationServerEvent =
  | { type: 'session.created'; event_id: string; session: TranslationSessionConfig }
  | { type: 'session.updated'; event_id: string; session: TranslationSessionConfig }
  | { type: 'session.closed'; event_id: string }
  /** Source-language transcript (when `audio.input.transcription` is set). */
  | { type: 'session.input_transcript.delta'; event_id: string; delta: string }
  /** Target-language transcript of the translated speech. */
  | { type: 'session.output_transcript.delta'; event_id: string; delta: string }
  /** 200 ms of translated speech, base64 PCM16; `sample_rate` defaults to 24000, `channels` to 1. */
  | {
      type: 'session.output_audio.delta';
      event_id: string;
      delta: string;
      sample_rate?: number;
      channels?: number;
      elapsed_ms?: number;
    }
  | {
      type: 'error';
      event_id: string;
      error: { type: string; code?: string | null; message: string; param?: string | null; event_id?: string | null };
    };
