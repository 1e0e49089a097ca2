import type { Every } from './link/every.ts';
import type { SyncLoop } from './link/sync.ts';
import type { Peers } from './peers/peers.ts';

/**
 * Every piece of background work of one core, registered in one place: the sync loop (its own
 * next run and link probe) and each room's timers (coverage, heartbeat, the SOS's retry and
 * poll). `start` starts them all, `stop` stops them all and waits for what is under way.
 */
export class Background {
  constructor(
    private readonly sync: SyncLoop,
    /** Started with a first run at once: the coverage and the heartbeat. */
    private readonly atOnce: Every[],
    /** Started to run on their interval only. */
    private readonly later: Every[],
    /** The peer channel: listening and dialling from the start (none: the kiosk talks to no peer). */
    private readonly peers: Peers | null = null,
  ) {}

  start(): void {
    for (const work of this.atOnce) work.start({ now: true });
    for (const work of this.later) work.start();
    this.sync.start();
    void this.peers?.start();
  }

  /** Stops every timer; answers once the sync and the work under way have finished (or after `graceMs`). */
  async stop(graceMs = 3_000): Promise<void> {
    const runs = [...this.atOnce, ...this.later].map((work) => work.stop());
    await Promise.all([this.sync.stop(graceMs), this.peers?.stop(), Promise.race([Promise.all(runs), new Promise((done) => setTimeout(done, graceMs).unref())])]);
  }
}
