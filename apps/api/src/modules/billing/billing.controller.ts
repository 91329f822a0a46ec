import { Body, Controller, Get, Header, Post, Put, Query } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { AlertsDto, AlertsView, CheckoutDto, CheckoutView, CreditView, HistoryLineView, HistoryQueryDto } from './billing.dto';
import { BillingHistoryService } from './billing-history.service';
import { CheckoutService } from './checkout.service';
import { CreditService } from './credit.service';
import { LowBalanceAlertsService } from './low-balance-alerts.service';
import { Idempotent } from '../idempotency/idempotent.decorator';

@ApiTags('billing')
@ApiBearerAuth()
@Controller('v1/billing')
export class BillingController {
  constructor(
    private readonly historyPages: BillingHistoryService,
    private readonly credits: CreditService,
    private readonly alertSettings: LowBalanceAlertsService,
    private readonly checkouts: CheckoutService,
  ) {}

  @Get('history')
  @Requires('billing:read')
  @ApiOperation({
    operationId: 'getBillingHistory',
    summary: 'Billing history',
    description:
      "One page of purchases, grants and calls that cost something, newest first, in one signed list: the amounts of all lines sum to the balance. `expand` chooses how much of each call's room and per-connection breakdown is included; a breakdown is never split across pages.",
  })
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiPageResponse(HistoryLineView, 'Purchases and calls, newest first; the amounts of all lines sum to the balance')
  @ApiErrors(422, 401)
  history(@CurrentActor() actor: Actor, @Query() query: HistoryQueryDto) {
    return this.historyPages.page(actor, query);
  }

  @Get('credit')
  @Requires('billing:read')
  @ApiOperation({
    operationId: 'getCredit',
    summary: 'Credit balance and rates',
    description:
      "The balance in cents (negative after overage: a call in progress is never cut off) and the per-minute rate of each participant class, billed per started minute of every connection, the translator's included.",
  })
  @ApiOkResponse({ type: CreditView })
  @ApiErrors(401)
  credit(@CurrentActor() actor: Actor) {
    return this.credits.view(actor);
  }

  @Get('alerts')
  @Requires('billing:read')
  @ApiOperation({
    summary: 'Low-balance alert settings',
    description: 'The threshold below which the balance sends the `credit.low` webhook event; null when alerts are off.',
  })
  @ApiOkResponse({ type: AlertsView, description: 'The low-balance threshold, or null when credit.low is off' })
  @ApiErrors(401)
  alerts(@CurrentActor() actor: Actor) {
    return this.alertSettings.read(actor);
  }

  @Put('alerts')
  @Requires('billing:write')
  @ApiOperation({
    summary: 'Set the low-balance alert threshold',
    description:
      '`credit.low` is sent once each time the balance falls from at or above `low_balance_cents` to below it, and ' +
      '`credit.exhausted` once each time it falls to zero or less; raising the balance again re-arms them. null turns credit.low off.',
  })
  @ApiOkResponse({ type: AlertsView, description: 'The threshold now in force' })
  @ApiErrors(422, 401)
  setAlerts(@CurrentActor() actor: Actor, @Body() body: AlertsDto) {
    return this.alertSettings.set(actor, body);
  }

  @Post('checkout')
  @Requires('billing:write')
  @ApiOperation({
    operationId: 'createCheckout',
    summary: 'Buy credit (Stripe Checkout)',
    description:
      'Starts a hosted Stripe Checkout for `amount_cents` (400 outside the configured range). Redirect the browser to `checkout_url`; the credit is added once Stripe reports the payment. 503 when Stripe is not configured or cannot be reached. Without Stripe an operator grants credit with `npm run -s cli -- credit:grant`.',
  })
  @Idempotent()
  @ApiCreatedResponse({ type: CheckoutView, description: 'Redirect the browser to checkout_url; credit is added once payment settles' })
  @ApiErrors(422, 400, 401, 503)
  checkout(@CurrentActor() actor: Actor, @Body() body: CheckoutDto) {
    return this.checkouts.start(actor, body);
  }
}
