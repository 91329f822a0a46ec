import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/public.decorator';
import { readConsoleFiles } from './console-files';

/**
 * The console page and its script and styles. Public: the page asks for an API key itself and calls
 * the public API with it, like any customer's dashboard. `no-cache`: a browser revalidates, so a new
 * version is seen at once.
 */
@ApiExcludeController()
@Public()
@Controller('console')
export class ConsoleController {
  private readonly files = readConsoleFiles();

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  page(): string {
    return this.files.page;
  }

  @Get('console.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  script(): string {
    return this.files.script;
  }

  @Get('console.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  styles(): string {
    return this.files.styles;
  }
}
