import os from 'node:os';
import type { AgentConfig } from '../config';
import { calibrateStreamCapacity, TARGET_UTILIZATION } from './calibration';

/**
 * Streams per core assumed when recognition, translation and synthesis are all hosted: the worker
 * then only moves audio and text (not measured here: set TRANSLATOR_STREAM_CAPACITY).
 */
export const HOSTED_STREAMS_PER_CORE = 8;

export interface WorkerStreamCapacity {
  capacity: number;
  source: string;
  costPerStream?: number;
}

/** TRANSLATOR_STREAM_CAPACITY, else a calibration of the local pipeline, else the hosted estimate. */
export async function workerStreamCapacity(config: AgentConfig): Promise<WorkerStreamCapacity> {
  if (config.streamCapacity !== null) return { capacity: config.streamCapacity, source: 'TRANSLATOR_STREAM_CAPACITY' };
  const { pipeline } = config;
  if (pipeline.stt === 'local' && pipeline.translation === 'local' && pipeline.tts === 'local') {
    const c = await calibrateStreamCapacity(pipeline);
    return {
      capacity: c.capacity,
      costPerStream: Math.round(c.costPerStream * 1000) / 1000,
      source:
        `calibrated on ${c.recording} in ${c.wallMs} ms, ${c.paced ? 'in real time' : 'unpaced'} (${c.timing} timing, pieces spoken: ${c.piecesSpoken}): ` +
        `${c.costPerStream.toFixed(3)} CPU s per audio s, ${c.cores} cores: ⌊${c.cores} × ${TARGET_UTILIZATION} ÷ ${c.costPerStream.toFixed(3)}⌋ = ${c.capacity}`,
    };
  }
  const cores = os.availableParallelism();
  return {
    capacity: HOSTED_STREAMS_PER_CORE * cores,
    source: `hosted stages: ${HOSTED_STREAMS_PER_CORE} per core, ${cores} cores (not measured)`,
  };
}
