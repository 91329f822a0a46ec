import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/public.decorator';

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

/** The deployment's default pages after checkout, used when neither the request nor the config names one. */
@ApiExcludeController()
@Public()
@Controller('checkout')
export class CheckoutPagesController {
  @Get('success')
  @Header('Content-Type', 'text/html; charset=utf-8')
  success(): string {
    return page('Payment received', 'Your credit is added as soon as the payment settles. You can close this page.');
  }

  @Get('cancel')
  @Header('Content-Type', 'text/html; charset=utf-8')
  cancel(): string {
    return page('Checkout cancelled', 'Nothing was charged and your balance is unchanged.');
  }
}
