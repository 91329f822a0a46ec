import { decodeGlossaryText, parseGlossaryText, type GlossaryEntry } from '@app/domain';

export type GlossaryFileResult = { ok: true; entries: GlossaryEntry[] } | { ok: false; problem: string };

/**
 * A glossary file for `translate:file --glossary`, read exactly as the API imports one: TSV when its
 * name ends in `.tsv` or `.tab`, CSV otherwise. A problem names its line as the API's 422 does.
 */
export function glossaryFromFile(bytes: Uint8Array, fileName: string): GlossaryFileResult {
  const format = /\.(tsv|tab)$/i.test(fileName) ? 'tsv' : 'csv';
  const text = decodeGlossaryText(bytes);
  const parsed = text.ok ? parseGlossaryText(text.value, format) : text;
  if (parsed.ok) return { ok: true, entries: parsed.value };
  const problems = parsed.error.map((issue) => `line ${issue.loc[0] ?? '?'}: ${issue.msg}`);
  return { ok: false, problem: `not a glossary (${format.toUpperCase()}): ${problems.slice(0, 5).join('; ')}` };
}
