import { ApiPropertyOptional } from '@nestjs/swagger';
import { IntRule } from '../validation/rules';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT })
  @IntRule({ min: 1, max: MAX_PAGE_LIMIT, optional: true, fromQuery: true })
  limit: number = DEFAULT_PAGE_LIMIT;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IntRule({ min: 0, optional: true, fromQuery: true })
  offset: number = 0;
}
