import { SUPPORTED_LANGUAGES } from '@app/domain';
import { AnyMember } from '../../common/auth/requires.decorator';
import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiTags, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '../../common/openapi/error-responses';

export class LanguageView {
  @ApiProperty({ example: 'de', description: 'BCP-47 language tag' }) code!: string;
  @ApiProperty({ example: 'German' }) name!: string;
}

@ApiTags('languages')
@ApiBearerAuth()
@Controller('v1/supported-languages')
export class LanguagesController {
  @Get()
  @AnyMember()
  @ApiOperation({
    operationId: 'listSupportedLanguages',
    summary: 'Supported languages',
    description: 'Every language a participant may declare in a join token or an invite join, alphabetically by name.',
  })
  @ApiOkResponse({ type: [LanguageView], description: 'Every language a participant may declare, alphabetically by name' })
  @ApiErrors(401)
  list(): readonly LanguageView[] {
    return SUPPORTED_LANGUAGES;
  }
}
