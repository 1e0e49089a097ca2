import type { Point } from './nearest.ts';

/**
 * The simulated responder network that plays out sandbox and drill incidents. These
 * responders are not rows of the responders table: no real person can ever be offered a
 * sandbox or drill incident.
 */
export const SIMULATED_RESPONDERS: ReadonlyArray<{ id: string; name: string; phone: string } & Point> = [
  { id: 'rsp_sim_lagos', name: 'Simulated Responder (Lagos)', phone: '+234000000001', latitude: 6.5244, longitude: 3.3792 },
  { id: 'rsp_sim_abuja', name: 'Simulated Responder (Abuja)', phone: '+234000000002', latitude: 9.0765, longitude: 7.3986 },
  { id: 'rsp_sim_kano', name: 'Simulated Responder (Kano)', phone: '+234000000003', latitude: 12.0022, longitude: 8.592 },
  { id: 'rsp_sim_portharcourt', name: 'Simulated Responder (Port Harcourt)', phone: '+234000000004', latitude: 4.8156, longitude: 7.0498 },
  { id: 'rsp_sim_ibadan', name: 'Simulated Responder (Ibadan)', phone: '+234000000005', latitude: 7.3775, longitude: 3.947 },
  { id: 'rsp_sim_kaduna', name: 'Simulated Responder (Kaduna)', phone: '+234000000006', latitude: 10.5105, longitude: 7.4165 },
  { id: 'rsp_sim_enugu', name: 'Simulated Responder (Enugu)', phone: '+234000000007', latitude: 6.4584, longitude: 7.5464 },
  { id: 'rsp_sim_benin', name: 'Simulated Responder (Benin City)', phone: '+234000000008', latitude: 6.335, longitude: 5.6037 },
  { id: 'rsp_sim_maiduguri', name: 'Simulated Responder (Maiduguri)', phone: '+234000000009', latitude: 11.8311, longitude: 13.151 },
  { id: 'rsp_sim_jos', name: 'Simulated Responder (Jos)', phone: '+234000000010', latitude: 9.8965, longitude: 8.8583 },
];

/** Seconds (at SANDBOX_SPEED 1) from one simulated step to the next: accept, set off, arrive, close. */
export const SIMULATED_STEP_SECONDS = { assigned: 5, responding: 10, on_scene: 60, resolved: 60 } as const;
