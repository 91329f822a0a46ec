import type { FieldIssue, Result } from '../errors';

// Fatal: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

const LF = 0x0a;
const CR = 0x0d;

/**
 * The text of a CSV/TSV glossary from its bytes, which must be UTF-8 (extensions.md "Glossaries"):
 * bytes that are not UTF-8 are an issue at the first line holding some (1-based, a line ending at
 * CRLF, LF or CR, as `parseGlossaryText` counts them), never replacement characters stored as terms.
 * A byte order mark is dropped.
 */
export function decodeGlossaryText(bytes: Uint8Array): Result<string, FieldIssue[]> {
  const text = decoded(bytes);
  if (text !== undefined) return { ok: true, value: text };
  const line = firstLineNotUtf8(bytes);
  return {
    ok: false,
    error: [
      {
        loc: [line],
        type: 'string_unicode',
        msg: `Line ${line}: the text is not valid UTF-8; send the file encoded as UTF-8.`,
        input: null,
      },
    ],
  };
}

function decoded(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The line of the first bytes that are not UTF-8. CR and LF never occur inside a UTF-8 sequence, so
 * the text is UTF-8 exactly when each line is, and the first line that is not holds the first bad bytes.
 */
function firstLineNotUtf8(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== LF && bytes[i] !== CR) continue;
    if (decoded(bytes.subarray(start, i)) === undefined) return line;
    if (bytes[i] === CR && bytes[i + 1] === LF) i++;
    line++;
    start = i + 1;
  }
  return line;
}
