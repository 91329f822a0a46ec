import type { llm as agentsLlm } from '@livekit/agents';
import type { GlossaryTerms } from './room-glossaries';
import { TranslationPrompt, translationTaskKey, type TranslationTask } from './translation-task';

export interface TranslationRequest {
  task: TranslationTask;
  text: string;
  /** The speaker's last few segments of this direction with their translations, oldest first. */
  context: readonly { text: string; translation: string }[];
  /** The room's glossary terms found in `text`, per direction it may be translated in (none: nothing to apply). */
  glossary?: readonly GlossaryTerms[];
}

/**
 * The translation stage of the speaker pipeline, between the framework's STT and TTS: an LLM
 * through agents-js, or a local engine. Streams text; for a `detect` task the answer starts with
 * `<code>|` (see `parseTargetTag`). An empty answer means nothing is said for the segment.
 */
export interface TextTranslator {
  readonly label: string;
  translate(request: TranslationRequest): AsyncIterable<string>;
  /** Gets a direction ready ahead of its first segment (a local engine's start-up), when that costs something. */
  prepare?(source: string, target: string): void;
}

export interface LlmTranslatorOptions {
  /** Attempts per segment when the model fails or answers nothing (agents-js's own retries come first). */
  attempts?: number;
  backoffMs?: number;
  /** `recoverable`: the framework's error event says agents-js retries the call. */
  onError?: (error: unknown, recoverable?: boolean) => void;
}

/**
 * Translation by a chat model. A failed or empty answer is retried with backoff, then skipped:
 * agents-js ends a failed LLM stream silently (the error goes to the LLM's `error` event only).
 */
export class LlmTranslator implements TextTranslator {
  readonly label: string;
  private readonly prompts = new Map<string, TranslationPrompt>();
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(
    private readonly model: agentsLlm.LLM,
    private readonly options: LlmTranslatorOptions = {},
  ) {
    this.label = model.label();
    this.attempts = options.attempts ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    // Without a listener, the framework's `error` event would throw; with one, the failure is logged.
    model.on('error', (event) => options.onError?.(event.error, event.recoverable));
  }

  private promptFor(task: TranslationTask): TranslationPrompt {
    const key = translationTaskKey(task);
    const prompt = this.prompts.get(key) ?? new TranslationPrompt(task);
    this.prompts.set(key, prompt);
    return prompt;
  }

  async *translate(request: TranslationRequest): AsyncIterable<string> {
    const chatCtx = this.promptFor(request.task).segmentContext(request.text, request.context, request.glossary);
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      let said = false;
      const answer = this.model.chat({ chatCtx });
      try {
        for await (const chunk of answer) {
          const delta = chunk.delta?.content;
          if (!delta) continue;
          said = true;
          yield delta;
        }
      } catch (error) {
        // Once text went out, a retry would say it twice: the segment ends where the model stopped.
        if (said) throw error;
        this.options.onError?.(error);
      } finally {
        answer.close();
      }
      if (said) return;
      if (attempt < this.attempts) await new Promise((resolve) => setTimeout(resolve, this.backoffMs * 2 ** (attempt - 1)));
    }
    this.options.onError?.(new Error(`${this.label}: no translation after ${this.attempts} attempts`));
  }
}
