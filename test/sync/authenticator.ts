/**
 * A small software passkey authenticator for the sync server's tests: real ES256 keys (`node:crypto`),
 * real CBOR attestation objects (format "none"), real authenticator data and signatures, so
 * @simplewebauthn/server verifies them exactly as it verifies a browser's. Not a mock of the library.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/** Minimal CBOR (RFC 8949) for what WebAuthn needs: unsigned/negative ints, bytes, text, maps. */
export function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map)
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  if (value && typeof value === 'object') return cbor(new Map(Object.entries(value)));
  throw new Error(`cbor: cannot encode ${typeof value}`);
}

/** One passkey: a credential id, its key pair, its user handle and signature counter. */
export interface SoftPasskey {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  userHandle: string | null;
  counter: number;
}

/** Options the server sent (the parts the authenticator reads). */
interface CreationOptions {
  challenge: string;
  rp: { id: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
}

/** Flags: user present, user verified, backup eligible and backed up (a synced passkey), attested data. */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

/** A software authenticator at `origin`; `rpId` overrides what the options say (to test a wrong RP ID). */
export function softAuthenticator(origin: string) {
  const clientData = (type: string, challenge: string, at = origin) =>
    Buffer.from(JSON.stringify({ type, challenge, origin: at, crossOrigin: false }));

  return {
    /** navigator.credentials.create(): returns the passkey and the RegistrationResponseJSON. */
    create(options: CreationOptions, opts: { origin?: string; rpId?: string } = {}) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const cose = cbor(
        new Map<number, unknown>([
          [1, 2], // kty: EC2
          [3, -7], // alg: ES256
          [-1, 1], // crv: P-256
          [-2, Buffer.from(jwk.x as string, 'base64url')],
          [-3, Buffer.from(jwk.y as string, 'base64url')],
        ]),
      );
      const id = randomBytes(16);
      const len = Buffer.alloc(2);
      len.writeUInt16BE(id.length);
      const authData = Buffer.concat([
        sha256(opts.rpId ?? options.rp.id),
        Buffer.from([UP | UV | BE | BS | AT]),
        Buffer.alloc(4), // counter 0: a synced passkey keeps none
        Buffer.alloc(16), // AAGUID
        len,
        id,
        cose,
      ]);
      const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData });
      const passkey: SoftPasskey = { id, privateKey, publicKey, userHandle: options.user.id, counter: 0 };
      const response = {
        id: b64u(id),
        rawId: b64u(id),
        type: 'public-key',
        response: {
          clientDataJSON: b64u(clientData('webauthn.create', options.challenge, opts.origin)),
          attestationObject: b64u(attestationObject),
          transports: ['internal', 'hybrid'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
      return { passkey, response };
    },
    /** navigator.credentials.get(): an AuthenticationResponseJSON signed by `passkey`. */
    get(passkey: SoftPasskey, options: RequestOptions, rpId: string, opts: { origin?: string } = {}) {
      const authData = Buffer.concat([sha256(options.rpId ?? rpId), Buffer.from([UP | UV | BE | BS]), Buffer.alloc(4)]);
      const cd = clientData('webauthn.get', options.challenge, opts.origin);
      const signature = sign('sha256', Buffer.concat([authData, sha256(cd)]), {
        key: passkey.privateKey,
        dsaEncoding: 'der',
      });
      return {
        id: b64u(passkey.id),
        rawId: b64u(passkey.id),
        type: 'public-key',
        response: {
          clientDataJSON: b64u(cd),
          authenticatorData: b64u(authData),
          signature: b64u(signature),
          ...(passkey.userHandle ? { userHandle: passkey.userHandle } : {}),
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
}
