import { describe, expect, it } from 'vitest';
import { isConnectionLost, isDatabaseUnavailable, isNeverSent } from '../../server/db/errors.ts';
import { repeatable } from '../../server/db/retry.ts';

/** How database errors are told apart: what may be retried, what is a 503, what is a bug. */
const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('database fault classification', () => {
  it('a terminated backend, a reset socket and a dropped connection are lost connections, and 503s', () => {
    for (const err of [
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
    ]) {
      expect(isConnectionLost(err), err.message).toBe(true);
      expect(isDatabaseUnavailable(err), err.message).toBe(true);
    }
  });

  it('a refused or timed-out connect, a server starting up and a statement timeout are 503s, but no connection was lost', () => {
    for (const err of [
      new Error('timeout exceeded when trying to connect'),
      pgError('57P03', 'the database system is starting up'),
      pgError('57014', 'canceling statement due to statement timeout'),
      pgError('53300', 'too many connections'),
    ]) {
      expect(isDatabaseUnavailable(err), err.message).toBe(true);
      expect(isConnectionLost(err), err.message).toBe(false);
    }
  });

  it('a constraint violation or a syntax error is none of these: the client or the code is wrong', () => {
    for (const err of [pgError('23505'), pgError('42601'), new Error('boom')]) {
      expect(isDatabaseUnavailable(err)).toBe(false);
      expect(isConnectionLost(err)).toBe(false);
    }
  });

  it('only a statement that never left the client counts as never sent', () => {
    expect(isNeverSent(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isNeverSent(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});

describe('repeatable', () => {
  it('runs work again after a lost connection, and answers what the later try gave', async () => {
    let tries = 0;
    const answer = await repeatable(async () => {
      tries++;
      if (tries < 3) throw new Error('Connection terminated unexpectedly');
      return 'done';
    }, 3, 1);
    expect(answer).toBe('done');
    expect(tries).toBe(3);
  });

  it('gives up after the tries it was given, with the last error', async () => {
    let tries = 0;
    await expect(repeatable(async () => {
      tries++;
      throw pgError('ECONNREFUSED', `refused ${tries}`);
    }, 3, 1)).rejects.toThrow('refused 3');
    expect(tries).toBe(3);
  });

  it('never repeats a statement timeout or an error that is not a fault', async () => {
    for (const err of [pgError('57014'), pgError('23505'), new Error('boom')]) {
      let tries = 0;
      await expect(repeatable(async () => {
        tries++;
        throw err;
      }, 3, 1)).rejects.toBe(err);
      expect(tries).toBe(1);
    }
  });
});
