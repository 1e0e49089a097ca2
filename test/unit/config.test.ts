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

  it('PUBLIC_URL, the sign-in links\' address, defaults to http://HOST:PORT; a set one loses its trailing slash; a bad one is named', () => {
    expect(loadConfig({}).PUBLIC_URL).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).PUBLIC_URL).toBe('http://0.0.0.0:8080');
    expect(loadConfig({ HOST: '::1' }).PUBLIC_URL).toBe('http://[::1]:3000');
    expect(loadConfig({ PUBLIC_URL: 'https://dispatch.tsaro.ng/' }).PUBLIC_URL).toBe('https://dispatch.tsaro.ng');
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://dispatch.tsaro.ng' })).toThrow(/PUBLIC_URL: must be an http:\/\/ or https:\/\/ address/);
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
    [{ REDIS_TIMEOUT_MS: '0' }, 'REDIS_TIMEOUT_MS'],
    [{ METRICS_PORT: 'prometheus' }, 'METRICS_PORT'],
    [{ WEBHOOK_RETRY_SCALE: '0' }, 'WEBHOOK_RETRY_SCALE'],
    [{ WEBHOOK_RETRY_SCALE: 'fast' }, 'WEBHOOK_RETRY_SCALE'],
    [{ WEBHOOK_ALLOW_PRIVATE: 'sometimes' }, 'WEBHOOK_ALLOW_PRIVATE'],
    [{ DATABASE_CONNECT_TIMEOUT_S: '0' }, 'DATABASE_CONNECT_TIMEOUT_S'],
    [{ DATABASE_STATEMENT_TIMEOUT_S: 'slow' }, 'DATABASE_STATEMENT_TIMEOUT_S'],
  ])('a wrong value %j stops the start naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('Redis commands time out after 200 ms by default; metrics are off unless METRICS_PORT is set, and bind to 127.0.0.1', () => {
    expect(loadConfig({})).toMatchObject({ REDIS_TIMEOUT_MS: 200, METRICS_PORT: undefined, METRICS_HOST: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', REDIS_TIMEOUT_MS: '50' })).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: '0.0.0.0',
      REDIS_TIMEOUT_MS: 50,
    });
  });

  it('PostgreSQL waits are bounded: 10 s for a connection, 30 s for a statement, both settable', () => {
    expect(loadConfig({})).toMatchObject({ DATABASE_CONNECT_TIMEOUT_S: 10, DATABASE_STATEMENT_TIMEOUT_S: 30 });
    expect(loadConfig({ DATABASE_CONNECT_TIMEOUT_S: '2.5', DATABASE_STATEMENT_TIMEOUT_S: '5' })).toMatchObject({
      DATABASE_CONNECT_TIMEOUT_S: 2.5,
      DATABASE_STATEMENT_TIMEOUT_S: 5,
    });
  });

  it('webhooks: the retry schedule at its real pace and no private targets unless the operator says so', () => {
    expect(loadConfig({})).toMatchObject({ WEBHOOK_RETRY_SCALE: 1, WEBHOOK_ALLOW_PRIVATE: false });
    expect(loadConfig({ WEBHOOK_RETRY_SCALE: '3600', WEBHOOK_ALLOW_PRIVATE: '1' })).toMatchObject({ WEBHOOK_RETRY_SCALE: 3600, WEBHOOK_ALLOW_PRIVATE: true });
  });

  it('an empty variable counts as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' })).toMatchObject({ PORT: 3000, REDIS_URL: undefined });
  });
});
