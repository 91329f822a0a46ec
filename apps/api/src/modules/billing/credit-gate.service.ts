import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { CreditAccountsRepository } from './credit-accounts.repository';

/** The credit balance rule: no new room while the balance is at or below zero. */
@Injectable()
export class CreditGateService {
  constructor(private readonly accounts: CreditAccountsRepository) {}

  async assertCanStartRoom(organizationId: string): Promise<void> {
    const balance = await this.accounts.readBalance(organizationId);
    if (balance <= 0) {
      throw new ApiError(
        402,
        `The credit balance is ${balance} cents: buy credit through POST /v1/billing/checkout before creating a room.`,
      );
    }
  }
}
