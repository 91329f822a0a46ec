/**
 * A job's view of its room's glossaries: what the dispatch carried or newer, then each change, handed
 * to the room's translator once it exists (docs/decisions.md "Glossaries reach translators").
 */
import type { RoomGlossaries } from '@app/contracts';
import type { log } from '@livekit/agents';
import type { AgentConfig } from '../config';
import type { RoomTranslator } from '../translation/room-translator';
import { GlossaryFollower } from './glossary-follower';

/** How long a job waits for Redis to read its room's glossaries before it joins without them (they follow once it answers). */
const GLOSSARIES_WAIT_MS = 3000;

export interface FollowedGlossaries {
  /** The newest glossaries handed on so far (the dispatch's, or a change since); undefined: none. */
  latest(): RoomGlossaries | undefined;
  /** From now on, each newer version goes to the translator. */
  applyTo(translator: Pick<RoomTranslator, 'setGlossaries'>): void;
  close(): Promise<void>;
}

/**
 * The room's glossaries: those its dispatch carried, or newer (the presence consumer keeps them in
 * Redis), then each change while the room lives (extensions.md "Glossaries").
 */
export async function followGlossaries({
  logger,
  config,
  job,
}: {
  logger: Pick<ReturnType<typeof log>, 'info' | 'warn'>;
  config: Pick<AgentConfig, 'redisUrl' | 'queuePrefix'>;
  job: { roomId: string };
}): Promise<FollowedGlossaries> {
  let latest: RoomGlossaries | undefined;
  let translator: Pick<RoomTranslator, 'setGlossaries'> | undefined;
  const follower = new GlossaryFollower({
    redisUrl: config.redisUrl,
    prefix: config.queuePrefix,
    roomId: job.roomId,
    onChange: (glossaries) => {
      latest = glossaries;
      translator?.setGlossaries(glossaries);
      logger.info({ roomId: job.roomId, version: glossaries.version }, 'glossaries applied from the next utterance');
    },
    onError: (error) => logger.warn({ error, roomId: job.roomId }, 'glossaries: Redis'),
  });
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), GLOSSARIES_WAIT_MS)));
  const starting = follower.start().then(
    () => 'started' as const,
    (error: unknown) => (logger.warn({ error, roomId: job.roomId }, 'glossaries: not followed'), 'failed' as const),
  );
  const started = await Promise.race([starting, waited]).finally(() => clearTimeout(timer));
  if (started === 'timeout') logger.warn({ roomId: job.roomId }, 'glossaries not read yet (Redis): joining without them');
  return {
    latest: () => latest,
    applyTo: (room) => {
      translator = room;
      if (latest) room.setGlossaries(latest);
    },
    close: () => follower.close(),
  };
}
