import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';

describe('configuration', () => {
  it('has the contract defaults', () => {
    expect(loadConfig({})).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATABASE_URL: './data/tsaro.db',
      LOG_LEVEL: 'info',
      DISPATCH_WINDOW_S: 60,
      ESCALATION_WINDOW_S: 300,
      SANDBOX_SPEED: 1,
      DEMO: true,
    });
  });

  it('DEMO is off by default on PostgreSQL and off when 0', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/tsaro' }).DEMO).toBe(false);
    expect(loadConfig({ DEMO: '0' }).DEMO).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/tsaro', DEMO: '1' }).DEMO).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ DISPATCH_WINDOW_S: '0' }, 'DISPATCH_WINDOW_S'],
    [{ SANDBOX_SPEED: 'fast' }, 'SANDBOX_SPEED'],
    [{ DEMO: 'maybe' }, 'DEMO'],
  ])('a wrong value %j stops the start naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('an empty variable counts as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' })).toMatchObject({ PORT: 3000, REDIS_URL: undefined });
  });
});
