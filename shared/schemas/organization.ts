import { z } from 'zod';
import { Timestamp } from './common.ts';

/** An organization's plan and subscription (CONTRACT.md, "Organizations, environments, keys, plans"). */
export const PLANS = ['none', 'starter', 'growth', 'enterprise'] as const;
export const SUBSCRIPTION_STATUSES = ['active', 'suspended'] as const;

/** What access codes begin with: `<PREFIX>-XXXX`. Typed in any case; kept in capitals. */
export const CODE_PREFIX_PATTERN = /^[A-Z]{2,6}$/;
export const CodePrefix = z
  .string()
  .trim()
  .toUpperCase()
  .regex(CODE_PREFIX_PATTERN, 'must be 2 to 6 letters (A-Z)')
  .meta({ example: 'LKS', description: 'What new access codes begin with (`LKS-7K2P`): 2 to 6 letters, kept in capitals; unique among organizations' });

export const OrganizationName = z.string().trim().min(1).max(200).meta({ example: 'Lekki Security Ltd' });

export const Organization = z
  .object({
    organization_id: z.string().meta({ example: 'org_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    name: z.string().meta({ description: 'Shown on every visitor pass and in the console', example: 'Lekki Security Ltd' }),
    code_prefix: z.string().meta({ description: 'What new access codes begin with; codes already issued keep theirs', example: 'LKS' }),
    plan: z.enum(PLANS),
    subscription_status: z.enum(SUBSCRIPTION_STATUSES),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Organization' });
export type Organization = z.infer<typeof Organization>;

export const OrganizationEnvelope = z.object({ organization: Organization }).meta({ id: 'OrganizationResponse' });

/** Each field given is changed. */
export const UpdateOrganizationRequest = z
  .strictObject({
    name: OrganizationName.optional(),
    code_prefix: CodePrefix.optional(),
  })
  .meta({ id: 'UpdateOrganizationRequest' });
export type UpdateOrganizationRequest = z.infer<typeof UpdateOrganizationRequest>;
