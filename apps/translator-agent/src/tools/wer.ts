/** Words of a transcript, compared case- and punctuation-blind. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9'\s]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Word error rate: (substitutions + deletions + insertions) / reference words, by edit distance. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = words(reference);
  const hyp = words(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j += 1) {
      const substitution = previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1));
    }
    previous = current;
  }
  return previous[hyp.length]! / ref.length;
}

/** Debian's pocketsphinx-testdata: `<s> words </s> (file-id)` per line. */
export function parseTranscriptionFile(text: string): Map<string, string> {
  const references = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\s*(?:<s>)?(.*?)(?:<\/s>)?\s*\(([^)]+)\)\s*$/.exec(line);
    if (match) references.set(match[2]!, match[1]!.trim());
  }
  return references;
}
