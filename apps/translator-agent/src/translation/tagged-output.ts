/**
 * When a mono utterance's language was not detected by speech recognition, the LLM names the
 * target itself: its answer starts with `<code>|`, then the translation. Parsed as it streams, so
 * the translation still reaches speech synthesis sentence by sentence.
 */
export type TagParse = { kind: 'pending' } | { kind: 'tagged'; target: string; rest: string } | { kind: 'untagged' };

const MAX_TAG_LENGTH = 12;

export function parseTargetTag(buffer: string, roomLanguages: readonly [string, string]): TagParse {
  const bar = buffer.indexOf('|');
  if (bar === -1) return buffer.length > MAX_TAG_LENGTH ? { kind: 'untagged' } : { kind: 'pending' };
  const tag = buffer.slice(0, bar).trim().toLowerCase();
  const target = roomLanguages.find((code) => code.toLowerCase() === tag);
  return target ? { kind: 'tagged', target, rest: buffer.slice(bar + 1).trimStart() } : { kind: 'untagged' };
}

export function translationInstructions(source: string, target: string): string {
  return (
    `You are a live interpreter. Translate the user's text from language "${source}" into language "${target}". ` +
    'Answer with the translation only: no quotes, no notes, keep the register and names.'
  );
}

export function detectAndTranslateInstructions(roomLanguages: readonly [string, string]): string {
  const [a, b] = roomLanguages;
  return (
    `You are a live interpreter between language "${a}" and language "${b}". The user's text is in one of them: ` +
    `translate it into the other. Start your answer with the code of the language you translate into and "|" ` +
    `(for example "${b}|"), then the translation only.`
  );
}
