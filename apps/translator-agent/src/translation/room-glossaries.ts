import type { CompiledGlossary, RoomGlossaries } from '@app/contracts';
import {
  createGlossaryMatcher,
  createPhraseStarts,
  createSoundsLikeReplacer,
  type GlossaryMatch,
  type GlossaryMatcher,
  type PhraseStarts,
  type SoundsLikeReplacer,
} from '@app/domain/glossaries';

/** A term or phrase a recognizer may be steered by, with its glossary's priority (0 is the strongest). */
export interface Keyterm {
  text: string;
  priority: number;
}

/** One direction's compiled glossary, prepared once per version for every utterance of the room. */
export interface DirectionGlossary {
  readonly glossary: CompiledGlossary;
  readonly matcher: GlossaryMatcher;
  readonly replaceSoundsLike: SoundsLikeReplacer;
  readonly startsPhrase: PhraseStarts;
  /** Each entry's A term, then its sounds_like phrases, in the glossary's order (priority first); each once. */
  readonly keyterms: readonly Keyterm[];
}

/** A glossary term found in a text to translate, and what it must come out as. */
export interface GlossaryTermMatch extends GlossaryMatch {
  doNotTranslate: boolean;
}

/** The glossary terms found in one text for one direction. */
export interface GlossaryTerms {
  source: string;
  target: string;
  matches: readonly GlossaryTermMatch[];
}

function prepare(glossary: CompiledGlossary): DirectionGlossary {
  const seen = new Set<string>();
  const keyterms: Keyterm[] = [];
  for (const entry of glossary.entries) {
    for (const text of [entry.source, ...entry.soundsLike]) {
      const key = text.trim().toLowerCase();
      if (!key || seen.has(key)) continue;
      seen.add(key);
      keyterms.push({ text: text.trim(), priority: entry.priority });
    }
  }
  // Only simultaneous mode asks where phrases start: built on its first question, once per version.
  let startsPhrase: PhraseStarts | null = null;
  return {
    glossary,
    matcher: createGlossaryMatcher(glossary),
    replaceSoundsLike: createSoundsLikeReplacer(glossary),
    startsPhrase: (text) => (startsPhrase ??= createPhraseStarts(glossary))(text),
    keyterms,
  };
}

/**
 * A room's glossaries as its translator applies them now. Only a newer version replaces the
 * current one (deliveries may come late, twice or out of order); each direction is prepared once
 * per version, so an utterance costs only the matching. Pipelines read it per utterance, so a change
 * applies from the next one; what was already said is never rewritten.
 */
export class GlossaryHolder {
  private current: RoomGlossaries | null = null;
  private directions = new Map<string, DirectionGlossary>();
  private readonly listeners = new Set<() => void>();

  constructor(initial?: RoomGlossaries | null) {
    if (initial) this.set(initial);
  }

  /** The version applied now; null before any. */
  get version(): number | null {
    return this.current?.version ?? null;
  }

  /** Takes `next` when it is newer than the current one; false when it was ignored. */
  set(next: RoomGlossaries): boolean {
    if (this.current && next.version <= this.current.version) return false;
    const directions = new Map<string, DirectionGlossary>();
    for (const glossary of next.directions) {
      if (glossary.entries.length > 0) directions.set(`${glossary.sourceLanguage}>${glossary.targetLanguage}`, prepare(glossary));
    }
    this.current = next;
    this.directions = directions;
    for (const listener of this.listeners) listener();
    return true;
  }

  /** The direction's prepared glossary; null when the room's glossaries have no entry for it. */
  direction(source: string, target: string): DirectionGlossary | null {
    return this.directions.get(`${source}>${target}`) ?? null;
  }

  /** The glossary terms in `text` for each of these directions that has any. */
  termsIn(text: string, directions: readonly (readonly [string, string])[]): GlossaryTerms[] {
    return directions.flatMap(([source, target]) => {
      const prepared = this.direction(source, target);
      const matches = prepared?.matcher.find(text) ?? [];
      if (!prepared || matches.length === 0) return [];
      return [
        { source, target, matches: matches.map((m) => ({ ...m, doNotTranslate: prepared.glossary.entries[m.entry]!.doNotTranslate })) },
      ];
    });
  }

  /** Called after every accepted change; returns the unsubscription. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
