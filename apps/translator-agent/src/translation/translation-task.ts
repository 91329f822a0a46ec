import type { UtteranceRoute } from '@app/domain/translation-routing';
import { llm } from '@livekit/agents';
import { detectAndTranslateInstructions, translationInstructions } from './tagged-output';

/**
 * What one translation step is asked to do: a known direction (dual mode, or mono with a detected
 * language), or detect which of the room's two languages the text is in (mono, undetected): then the
 * answer starts with the target's tag, see `parseTargetTag`.
 */
export type TranslationTask =
  { kind: 'fixed'; source: string; target: string } | { kind: 'detect'; roomLanguages: readonly [string, string] };

export function translationTaskInstructions(task: TranslationTask): string {
  return task.kind === 'fixed' ? translationInstructions(task.source, task.target) : detectAndTranslateInstructions(task.roomLanguages);
}

/**
 * The step for one routed utterance: its known direction, or detection when mono recognition named
 * no language; `null` when the utterance is not translated at all.
 */
export function translationTaskFor(route: UtteranceRoute, roomLanguages: readonly [string, string]): TranslationTask | null {
  if (route.kind === 'translate') return { kind: 'fixed', source: route.source, target: route.target };
  return route.reason === 'language-undetected' ? { kind: 'detect', roomLanguages } : null;
}

/** `de>en`, or `detect` for the tagged mono step: one prompt per key is enough. */
export function translationTaskKey(task: TranslationTask): string {
  return task.kind === 'fixed' ? `${task.source}>${task.target}` : 'detect';
}

/**
 * The LLM request of the pipeline's text translation step: its instructions say what to translate
 * into, then the speaker's last few segments with their translations (recognition cuts sentences at
 * short pauses, and a fragment alone is often ambiguous), then the segment to translate.
 * `LlmTranslator` keeps one per task key and asks the model with `segmentContext`.
 */
export class TranslationPrompt {
  readonly instructions: string;

  constructor(readonly task: TranslationTask) {
    this.instructions = translationTaskInstructions(task);
  }

  /** The whole LLM request for one segment: the instructions, earlier segments as answered turns, then the segment. */
  segmentContext(text: string, context: readonly { text: string; translation: string }[] = []): llm.ChatContext {
    const chatCtx = llm.ChatContext.empty();
    chatCtx.addMessage({ role: 'system', content: this.instructions });
    for (const earlier of context) {
      chatCtx.addMessage({ role: 'user', content: earlier.text });
      chatCtx.addMessage({ role: 'assistant', content: earlier.translation });
    }
    chatCtx.addMessage({ role: 'user', content: text });
    return chatCtx;
  }
}
