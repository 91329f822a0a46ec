import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';

/** The credit balance rule: no new room while the balance is at or below zero. */
@Injectable()
export class CreditGate {
  constructor(private readonly dataSource: DataSource) {}

  async assertCanStartRoom(organizationId: string): Promise<void> {
    const [account] = (await this.dataSource.query(`SELECT balance_cents FROM credit_accounts WHERE organization_id = $1`, [
      organizationId,
    ])) as {
      balance_cents: number;
    }[];
    const balance = account?.balance_cents ?? 0;
    if (balance <= 0) {
      throw new ApiError(
        402,
        `The credit balance is ${balance} cents: buy credit through POST /v1/billing/checkout before creating a room.`,
      );
    }
  }
}
