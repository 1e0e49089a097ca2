import { describe, expect, it } from 'vitest';
import { outsidePartsParagraph, withoutSecrets } from '../../server/outside-parts.ts';

describe('the start banner names the outside parts, never a password (issue #48)', () => {
  it('leaves out the user information and the query of an address', () => {
    expect(withoutSecrets('redis://:s3cret@redis.internal:6380/2')).toBe('redis://redis.internal:6380/2');
    expect(withoutSecrets('rediss://tsaro:s3cret@redis.internal:6380')).toBe('rediss://redis.internal:6380');
    expect(withoutSecrets('http://kannel:13013/cgi-bin/sendsms?username=u&password=p')).toBe('http://kannel:13013/cgi-bin/sendsms');
    expect(withoutSecrets('not a url')).toBe('(an address that is not a URL)');
  });

  it('says PostgreSQL and its host, Redis and Kannel with where each is', () => {
    const text = outsidePartsParagraph(
      { REDIS_URL: 'redis://:s3cret@10.0.0.5:6379', SMS_GATEWAY: 'kannel', KANNEL_SENDSMS_URL: 'http://10.0.0.6:13013/cgi-bin/sendsms', KANNEL_USERNAME: 'tsaro', SMS_SENDER_ID: 'TSARO' },
      'postgres://db.internal:5432/tsaro',
    );
    expect(text).toContain('Database:  PostgreSQL at postgres://db.internal:5432/tsaro');
    expect(text).toContain('Redis:     redis://10.0.0.5:6379: rate limits shared by every host');
    expect(text).toContain('Texts:     on, through Kannel at http://10.0.0.6:13013/cgi-bin/sendsms as user tsaro, from TSARO');
    expect(text).not.toContain('s3cret');
  });
});
