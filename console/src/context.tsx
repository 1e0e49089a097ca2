import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import { describeError, type Client, type Environment, type Schemas } from './api.ts';
import { can, type Permission } from './permissions.ts';
import type { LiveStream } from './live/stream.ts';

/** A signed-in person's session, as `GET /console/session` answers it. */
export type Session = Schemas['ConsoleSession'];

export interface ConsoleContext {
  session: Session;
  client: Client;
  environment: Environment;
  setEnvironment: (environment: Environment) => void;
  /** Works in another of the person's organizations (they may belong to several). */
  setOrganization: (organizationId: string) => Promise<void>;
  /** Reads the session again (after a role or TOTP change). */
  refreshSession: () => Promise<void>;
  signOut: () => Promise<void>;
  can: (permission: Permission) => boolean;
  /** The organization's and environment's event stream, shared by every tab working in them (live/stream.ts). */
  live: LiveStream;
}

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (!value) throw new Error('useConsole outside the signed-in console');
  return value;
}

export const canFor = (session: Session) => (permission: Permission) => can(session.person, permission);

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads what a screen shows, again whenever its inputs or the environment change; an answer to
 * an older request never overwrites a newer one.
 */
export function useLoad<T>(load: (client: Client) => Promise<T>, inputs: readonly unknown[]): Loaded<T> {
  const { client, environment } = useConsole();
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true, error: null }));
    load(client).then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) => current && setState({ data: undefined, error: describeError(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [client, environment, round, ...inputs]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, reload };
}
