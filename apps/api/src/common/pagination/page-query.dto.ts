import { ApiPropertyOptional } from '@nestjs/swagger';
import { IntRule } from '../validation/rules';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT })
  @IntRule({ min: 1, max: MAX_PAGE_LIMIT, optional: true, fromQuery: true })
  limit: number = DEFAULT_PAGE_LIMIT;

  /** Past the end is an empty page; beyond the exact integers of a JS number (and SQL's bigint casts) is 422. */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })
  @IntRule({ min: 0, max: Number.MAX_SAFE_INTEGER, optional: true, fromQuery: true })
  offset: number = 0;
}
