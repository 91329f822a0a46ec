import { Foundation1763780000000 } from './1763780000000-Foundation';
import { Rooms1763790000000 } from './1763790000000-Rooms';
import { Ledger1763800000000 } from './1763800000000-Ledger';
import { UsageAndHistory1763810000000 } from './1763810000000-UsageAndHistory';
import { TranslationStats1763820000000 } from './1763820000000-TranslationStats';
import { SharedTokenAdmission1763830000000 } from './1763830000000-SharedTokenAdmission';
import { UsageVersions1763850000000 } from './1763850000000-UsageVersions';
import { InboundEventSequence1763860000000 } from './1763860000000-InboundEventSequence';
import { HistoryVersions1763870000000 } from './1763870000000-HistoryVersions';
import { HeldLanguagesByIndex1763880000000 } from './1763880000000-HeldLanguagesByIndex';
import { BatchedTokenAdmission1763890000000 } from './1763890000000-BatchedTokenAdmission';
import { Integrations1763930000000 } from './1763930000000-Integrations';
import { SqlFunctionsFromSource1763941900000 } from './1763941900000-SqlFunctionsFromSource';
import { RoomsNewestByMillisecond1763941910000 } from './1763941910000-RoomsNewestByMillisecond';
import { Transcripts1764100000000 } from './1764100000000-Transcripts';
import { WebhookListsByMillisecond1764200000000 } from './1764200000000-WebhookListsByMillisecond';
import { OrderIndependentMetering1764300000000 } from './1764300000000-OrderIndependentMetering';
import { Glossaries1764400000000 } from './1764400000000-Glossaries';
import { LiveKitReconciliation1764500000000 } from './1764500000000-LiveKitReconciliation';
import { Teams1764600000000 } from './1764600000000-Teams';
import { AuditLog1764610000000 } from './1764610000000-AuditLog';
import { EventLog1764800000000 } from './1764800000000-EventLog';
import { OpenConnectionsByOrganization1764700000000 } from './1764700000000-OpenConnectionsByOrganization';
import { TranscriptCommittedWords1764900000000 } from './1764900000000-TranscriptCommittedWords';

/** Every migration, oldest first. A landed migration is never edited; a change is a new one. */
export const MIGRATIONS = [
  Foundation1763780000000,
  Rooms1763790000000,
  Ledger1763800000000,
  UsageAndHistory1763810000000,
  TranslationStats1763820000000,
  SharedTokenAdmission1763830000000,
  UsageVersions1763850000000,
  InboundEventSequence1763860000000,
  HistoryVersions1763870000000,
  HeldLanguagesByIndex1763880000000,
  BatchedTokenAdmission1763890000000,
  Integrations1763930000000,
  SqlFunctionsFromSource1763941900000,
  RoomsNewestByMillisecond1763941910000,
  Transcripts1764100000000,
  WebhookListsByMillisecond1764200000000,
  OrderIndependentMetering1764300000000,
  Glossaries1764400000000,
  LiveKitReconciliation1764500000000,
  Teams1764600000000,
  AuditLog1764610000000,
  OpenConnectionsByOrganization1764700000000,
  EventLog1764800000000,
  TranscriptCommittedWords1764900000000,
];
