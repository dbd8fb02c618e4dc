/** How a broker state reads and is coloured, shared by the overview chips and the brokers table. */
import type { BrokerState } from '../../../../app/api/events.js';

export type TagType = 'default' | 'success' | 'info' | 'warning' | 'error';

export const STATE_TYPE: Record<BrokerState, TagType> = {
  running: 'success',
  starting: 'info',
  'controlled-shutdown': 'info',
  fenced: 'warning',
  stopped: 'default',
  killed: 'error',
  'power-lost': 'error',
  'storage-failed': 'error',
};

/** One line on what the state means, for the chip's tooltip. */
export const STATE_MEANS: Record<BrokerState, string> = {
  running: 'Registered and unfenced: it can lead partitions and serve clients.',
  starting: 'The process is recovering its logs and registering with the controller.',
  'controlled-shutdown': 'Moving leadership away before stopping.',
  fenced: 'The process runs but the controller has fenced it (missed heartbeats or not caught up): it leads nothing.',
  stopped: 'Shut down cleanly: every log was flushed.',
  killed: 'The process was killed: its writes survive in the OS cache; start it to recover.',
  'power-lost': 'The machine lost power: unflushed tails are gone; start it to recover and re-fetch.',
  'storage-failed': 'Its log directory failed (disk full, I/O error, corrupt file): it halted.',
};
