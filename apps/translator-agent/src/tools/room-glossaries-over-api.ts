import { compileRoomGlossaries, validateGlossaryEntry, type GlossaryEntry, type RoomGlossaries } from '@app/domain';

export interface RoomGlossariesRequest {
  /** The API's base URL, e.g. http://127.0.0.1:3000. */
  apiUrl: string;
  apiKey: string;
  roomId: string;
  languages: readonly [string, string];
  fetch?: typeof fetch;
}

/** The API's page limit at most: fewest requests for a 10,000-entry glossary. */
const PAGE_LIMIT = 200;

/**
 * The glossaries a room uses now, read through the public API as its owner (`GET
 * /v1/rooms/{id}/glossaries`, then each glossary's entries page by page) and compiled for the pair
 * with the function the API compiles a live translator's with. For `translate:file --room`: a file
 * spoken into a room has no translator, so no dispatch carries them.
 */
export async function roomGlossariesOverApi(request: RoomGlossariesRequest): Promise<RoomGlossaries> {
  const get = async <T>(path: string): Promise<T> => {
    const url = new URL(path, request.apiUrl);
    const response = await (request.fetch ?? fetch)(url, { headers: { authorization: `Bearer ${request.apiKey}` } });
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      throw new Error(`GET ${url.pathname}${url.search} answered ${response.status}: ${body.slice(0, 300)}`);
    }
    return (await response.json()) as T;
  };
  const room = await get<{ glossary_ids: string[] }>(`/v1/rooms/${encodeURIComponent(request.roomId)}/glossaries`);
  const glossaries: GlossaryEntry[][] = [];
  for (const id of room.glossary_ids) {
    const entries: GlossaryEntry[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const page: { items: unknown[]; next_offset: number | null } = await get(
        `/v1/glossaries/${encodeURIComponent(id)}/entries?limit=${PAGE_LIMIT}&offset=${offset}`,
      );
      for (const item of page.items) {
        const entry = validateGlossaryEntry(item);
        if (!entry.ok) throw new Error(`glossary ${id}: an entry the API returned does not read as one: ${JSON.stringify(entry.error)}`);
        entries.push(entry.value);
      }
      offset = page.next_offset;
    }
    glossaries.push(entries);
  }
  return compileRoomGlossaries(glossaries, request.languages, 0);
}
