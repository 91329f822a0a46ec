import type { PageQueryDto } from './page-query.dto';

export interface Page<T> {
  items: T[];
  limit: number;
  offset: number;
  next_offset: number | null;
}

/** Builds the envelope from a query that fetched `limit + 1` rows: the extra row only says more exist. */
export function toPage<T>(rowsPlusOne: T[], query: PageQueryDto): Page<T> {
  const more = rowsPlusOne.length > query.limit;
  return {
    items: more ? rowsPlusOne.slice(0, query.limit) : rowsPlusOne,
    limit: query.limit,
    offset: query.offset,
    next_offset: more ? query.offset + query.limit : null,
  };
}
