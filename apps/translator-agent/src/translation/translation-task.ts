import type { UtteranceRoute } from '@app/domain/translation-routing';
import { llm } from '@livekit/agents';
import type { GlossaryTerms } from './room-glossaries';
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

/** The directions the step may translate in: its own, or either way between the room's languages. */
export function translationDirections(task: TranslationTask): (readonly [string, string])[] {
  if (task.kind === 'fixed') return [[task.source, task.target]];
  const [a, b] = task.roomLanguages;
  return [
    [a, b],
    [b, a],
  ];
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

  /**
   * The whole LLM request for one segment: the instructions (with the glossary terms found in it, if
   * any), earlier segments as answered turns, then the segment.
   */
  segmentContext(
    text: string,
    context: readonly { text: string; translation: string }[] = [],
    glossary: readonly GlossaryTerms[] = [],
  ): llm.ChatContext {
    const chatCtx = llm.ChatContext.empty();
    const terms = glossaryInstructions(glossary);
    chatCtx.addMessage({ role: 'system', content: terms ? `${this.instructions}\n\n${terms}` : this.instructions });
    for (const earlier of context) {
      chatCtx.addMessage({ role: 'user', content: earlier.text });
      chatCtx.addMessage({ role: 'assistant', content: earlier.translation });
    }
    chatCtx.addMessage({ role: 'user', content: text });
    return chatCtx;
  }
}

/**
 * The glossary's instructions for one segment: only the entries whose terms it holds, so that a
 * large glossary does not make every prompt large. Null when none applies.
 */
export function glossaryInstructions(glossary: readonly GlossaryTerms[]): string | null {
  const sections = glossary.flatMap(({ source, target, matches }) => {
    const lines = new Set(
      matches.map((m) =>
        m.doNotTranslate
          ? `- ${JSON.stringify(m.text)}: keep it as written, untranslated`
          : `- ${JSON.stringify(m.text)} → ${JSON.stringify(m.target)}`,
      ),
    );
    if (lines.size === 0) return [];
    const heading = glossary.length > 1 ? `When translating from ${source} into ${target}:\n` : '';
    return [heading + [...lines].join('\n')];
  });
  if (sections.length === 0) return null;
  return `Glossary: translate these terms exactly as given here, whatever the context.\n${sections.join('\n')}`;
}
