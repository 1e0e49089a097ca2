import type { ApiKey } from '../../shared/schemas/api-keys.ts';
import type { WebhookEndpoint } from '../../shared/schemas/webhooks.ts';

export type { ApiKey, WebhookEndpoint };
export type Environment = 'live' | 'sandbox';
export type Role = 'owner' | 'admin' | 'developer' | 'operator' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'operator', 'viewer'];

export interface Person {
  person_id: string;
  email: string;
  name: string | null;
  role: Role;
  totp_enabled: boolean;
  created_at?: string;
  last_active_at?: string | null;
}

export interface Session {
  stage: 'totp' | 'enrol_totp' | 'active';
  person: Person;
  organization: { organization_id: string; name: string; plan: 'none' | 'starter' | 'growth' | 'enterprise'; subscription_status: 'active' | 'suspended' };
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}

export interface Page<T> {
  results: T[];
  page: number;
  limit: number;
  totalPages: number;
  totalResults: number;
}

export interface Invitation {
  invitation_id?: string;
  email: string;
  role: Role;
  name?: string | null;
  organization_name?: string;
  expires_at: string;
  created_at?: string;
  kind?: 'join' | 'reset';
}

export interface ConsoleSession {
  session_id: string;
  user_agent: string | null;
  ip: string | null;
  created_at: string;
  last_active_at: string;
  current: boolean;
}

/** A delivery attempt as the API lists it (WebhookDelivery in shared/schemas/webhooks.ts). */
export interface Delivery {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  response_status: number | null;
  /** The receiver's answer, its first 500 characters; shown as text. */
  response_excerpt: string | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
  next_attempt_at: string | null;
  /** The envelope delivered; null when the caller may not read the event's type. */
  payload: EventEnvelope | null;
}

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  test?: boolean;
  data: Record<string, unknown>;
}

export interface AuditEntry {
  audit_id: string;
  actor: { type: 'person' | 'key' | 'operator'; id: string | null; label: string | null };
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  environment: Environment | null;
  ip: string | null;
  created_at: string;
}
