/**
 * How nodes trust each other on the peer port: TLS (always mutual: each side shows a certificate signed by the
 * cluster's CA, and checks the other's) and a cluster secret that every call carries in its metadata. Either one
 * authenticates a call; with both, a call needs both.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import * as grpc from '@grpc/grpc-js';

export interface PeerTls {
  /** PEM of the CA that signed every node's certificate: the only one trusted, on both sides of a call. */
  ca: Buffer;
  /** PEM: this node's certificate (and its chain), shown as server and as client. */
  certificate: Buffer;
  /** PEM: the certificate's private key, unencrypted. */
  key: Buffer;
}

export interface PeerSecurity {
  tls?: PeerTls;
  /** Shared by every node of the cluster; sent with each call, checked before the call is read. */
  secret?: string;
}

/** The metadata key of the cluster secret, as `Bearer <secret>`. */
export const PEER_SECRET_METADATA = 'authorization';
const SCHEME = 'Bearer ';

/** Whether calls are authenticated at all: by the TLS client certificate, the secret or both. */
export function isAuthenticated(security: PeerSecurity): boolean {
  return security.tls !== undefined || security.secret !== undefined;
}

/**
 * Whether `metadata` carries exactly one `authorization: Bearer <secret>` with the cluster secret. Both sides are
 * hashed first, so that the comparison is over equal lengths and takes the same time whatever the caller sent.
 */
export function carriesSecret(metadata: grpc.Metadata, secret: string): boolean {
  const values = metadata.get(PEER_SECRET_METADATA);
  if (values.length !== 1 || typeof values[0] !== 'string' || !values[0].startsWith(SCHEME)) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(values[0].slice(SCHEME.length)), digest(secret));
}

/** The metadata each call of this node carries: the secret, when there is one. */
export function callMetadata(security: PeerSecurity): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (security.secret !== undefined) metadata.set(PEER_SECRET_METADATA, `${SCHEME}${security.secret}`);
  return metadata;
}

/**
 * Refuses, with UNAUTHENTICATED, a call whose metadata lacks the secret (and tells `onRefused` who made it). It acts
 * on the metadata, which arrives before the request message: a refused call's message is never deserialized and the
 * handler never runs.
 */
export function secretInterceptor(secret: string, onRefused: (peer: string) => void = () => undefined): grpc.ServerInterceptor {
  return (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, proceed) => {
            if (carriesSecret(metadata, secret)) {
              proceed(metadata);
              return;
            }
            onRefused(call.getPeer());
            call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: 'missing or wrong cluster secret', metadata: new grpc.Metadata() });
          },
        }),
    });
}

export function serverCredentials(security: PeerSecurity): grpc.ServerCredentials {
  const { tls } = security;
  if (tls === undefined) return grpc.ServerCredentials.createInsecure();
  // true: a client without a certificate from the CA is refused during the handshake.
  return grpc.ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.certificate, private_key: tls.key }], true);
}

/**
 * The TLS server name (SNI) sent to a peer at an IP address. Any DNS name does: a node's server has one certificate
 * and reads no server name.
 */
const IP_PEER_SERVER_NAME = 'sluice-peer';

/**
 * The credentials of a channel to the peer at `grpcEndpoint` (`host:port`), and the channel options they need.
 * grpc-js gives TLS the peer's host as the server name, which RFC 6066 forbids for an IP address: Node 24 and older
 * print a DeprecationWarning (DEP0123) for it, and Node 26 refuses the connection. A peer at an IP address gets a
 * name that is not one, and its certificate is checked against its address, as Node checks a connection made
 * without a server name.
 */
export function channelCredentials(security: PeerSecurity, grpcEndpoint: string): { credentials: grpc.ChannelCredentials; options: grpc.ChannelOptions } {
  const { tls: peerTls } = security;
  if (peerTls === undefined) return { credentials: grpc.credentials.createInsecure(), options: {} };
  const host = grpcEndpoint.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  if (!isIP(host)) return { credentials: grpc.credentials.createSsl(peerTls.ca, peerTls.key, peerTls.certificate), options: {} };
  return {
    credentials: grpc.credentials.createSsl(peerTls.ca, peerTls.key, peerTls.certificate, { checkServerIdentity: (_name, certificate) => checkServerIdentity(host, certificate) }),
    options: { 'grpc.ssl_target_name_override': IP_PEER_SERVER_NAME },
  };
}
