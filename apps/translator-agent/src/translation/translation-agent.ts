import type { UtteranceRoute } from '@app/domain/translation-routing';
import { llm, voice } from '@livekit/agents';
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

/** `de>en`, or `detect` for the tagged mono step: one agent per key is enough. */
export function translationTaskKey(task: TranslationTask): string {
  return task.kind === 'fixed' ? `${task.source}>${task.target}` : 'detect';
}

/**
 * The text translation step of the pipeline as an agent: its instructions say what to translate into,
 * then the speaker's last few segments with their translations (recognition cuts sentences at short
 * pauses, and a fragment alone is often ambiguous), then the segment to translate. `LlmTranslator`
 * asks the LLM with `segmentContext`; inside an `AgentSession` (tests with agents-js's testing tools)
 * `llmNode` builds the request for the latest user text the same way.
 */
export class TranslationAgent extends voice.Agent {
  readonly translationInstructions: string;

  constructor(readonly task: TranslationTask) {
    const instructions = translationTaskInstructions(task);
    super({ instructions });
    this.translationInstructions = instructions;
  }

  /** The whole LLM request for one segment: the instructions, earlier segments as answered turns, then the segment. */
  segmentContext(text: string, context: readonly { text: string; translation: string }[] = []): llm.ChatContext {
    const chatCtx = llm.ChatContext.empty();
    chatCtx.addMessage({ role: 'system', content: this.translationInstructions });
    for (const earlier of context) {
      chatCtx.addMessage({ role: 'user', content: earlier.text });
      chatCtx.addMessage({ role: 'assistant', content: earlier.translation });
    }
    chatCtx.addMessage({ role: 'user', content: text });
    return chatCtx;
  }

  override async llmNode(chatCtx: llm.ChatContext, toolCtx: llm.ToolContext, modelSettings: voice.ModelSettings) {
    const segment = latestUserText(chatCtx);
    if (segment === null) return null;
    return voice.Agent.default.llmNode(this, this.segmentContext(segment), toolCtx, modelSettings);
  }
}

function latestUserText(chatCtx: llm.ChatContext): string | null {
  for (let i = chatCtx.items.length - 1; i >= 0; i -= 1) {
    const item = chatCtx.items[i];
    if (item?.type === 'message' && item.role === 'user') return item.textContent ?? null;
  }
  return null;
}
