/**
 * Serialized responses kept with the version of the data they were computed from. An entry is
 * served only while the caller reads that same version from the database, so it can never be
 * stale; the least recently used entries go first once the cache holds `maxBytes`.
 */
export class VersionedCache {
  private readonly entries = new Map<string, { version: string; body: string }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: string): string | null {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return null;
    // Re-inserting moves the key to the end: Map order is least to most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  set(key: string, version: string, body: string): void {
    this.remove(key);
    if (body.length > this.maxBytes) return;
    this.entries.set(key, { version, body });
    this.bytes += body.length;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}
