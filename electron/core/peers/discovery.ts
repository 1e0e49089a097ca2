import { Bonjour } from 'bonjour-service';

/** The mDNS service type the gates publish and browse: `_tsaro-kiosk._tcp.local`. */
export const PEER_SERVICE_TYPE = 'tsaro-kiosk';

export interface PeerDiscovery {
  stop(): void;
}

/**
 * mDNS on the site's LAN (issue #49; CONTRACT.md, "Gates of one site on the local network"): this
 * kiosk publishes its peer port under its kiosk id, and every other kiosk found is handed to
 * `found` as `host:port` to dial. Being found proves nothing: the handshake decides who is a peer.
 * Where multicast is blocked nothing is found, and `KIOSK_PEERS` does the work.
 */
export function discoverPeers(options: { kioskId: string; port: number; found(address: string): void; logEvent(message: string): void }): PeerDiscovery {
  const bonjour = new Bonjour({}, (error: Error) => options.logEvent(`mDNS discovery failed (${error.message}); list the peers in KIOSK_PEERS`));
  bonjour.publish({ name: options.kioskId, type: PEER_SERVICE_TYPE, port: options.port, txt: { v: '1' } });
  const browser = bonjour.find({ type: PEER_SERVICE_TYPE }, (service) => {
    if (service.name === options.kioskId || !service.port) return;
    const host = service.addresses?.find((address) => /^\d+\.\d+\.\d+\.\d+$/.test(address)) ?? service.referer?.address;
    if (!host) return;
    options.found(`${host.includes(':') ? `[${host}]` : host}:${service.port}`);
  });
  return {
    stop() {
      browser.stop();
      bonjour.unpublishAll();
      bonjour.destroy();
    },
  };
}
