import type { Config } from './config.ts';

/**
 * Which outside parts this start uses, and where, in words beside the addresses (issue #48): the
 * database, Redis and text messages through Kannel, each on or off. An operator who set
 * SMS_GATEWAY=kannel sees at once that texts are on and where they go. Never a password: a
 * URL's user information and query are left out, and the Kannel user is named, not its password.
 */
export function outsidePartsParagraph(config: Pick<Config, 'REDIS_URL' | 'SMS_GATEWAY' | 'KANNEL_SENDSMS_URL' | 'KANNEL_USERNAME' | 'SMS_SENDER_ID'>, database: string): string {
  const texts =
    config.SMS_GATEWAY === 'kannel' && config.KANNEL_SENDSMS_URL
      ? `on, through Kannel at ${withoutSecrets(config.KANNEL_SENDSMS_URL)} as user ${config.KANNEL_USERNAME ?? '?'}, from ${config.SMS_SENDER_ID}`
      : 'off (SMS_GATEWAY is not set): nobody is texted when an alarm is raised';
  const redis = config.REDIS_URL ? `${withoutSecrets(config.REDIS_URL)}: rate limits shared by every host` : 'off (REDIS_URL is not set): rate limits are kept in this process';
  return [`  Outside parts:`, `    Database:  ${databaseWords(database)}`, `    Redis:     ${redis}`, `    Texts:     ${texts}`, ''].join('\n') + '\n';
}

function databaseWords(describe: string): string {
  if (describe.startsWith('postgres://')) return `PostgreSQL at ${withoutSecrets(describe)}`;
  return `SQLite, the file ${describe.replace(/^sqlite:/, '')}`;
}

/** A URL with no user, password or query (where a password may sit), as it is safe to print. */
export function withoutSecrets(address: string): string {
  try {
    const url = new URL(address);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/$/, url.pathname === '/' ? '' : '/');
  } catch {
    return '(an address that is not a URL)';
  }
}
