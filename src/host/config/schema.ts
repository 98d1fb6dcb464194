/** The JSON schema of the host configuration file (after environment variables and flags are merged in). */

import { ROLES } from '../../server/auth/roles';

const scalar = { type: ['string', 'number', 'boolean'] } as const;
const scalarMap = { type: 'object', additionalProperties: scalar } as const;
const stringOrStrings = { anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }] } as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** auto: pretty on a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
/** The parts of a node whose levels are set apart (log.components). */
export const LOG_COMPONENTS = ['kafka', 'streams', 'http', 'peers'] as const;

export const hostConfigSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['streams'],
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        grpcPort: { type: 'integer', minimum: 0, maximum: 65535 },
        advertisedHost: { type: 'string', minLength: 1 },
        headless: { type: 'boolean' },
        users: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            required: ['password', 'role'],
            properties: { password: { type: 'string', minLength: 1 }, role: { type: 'string', enum: ROLES } },
          },
        },
        allowPlaintextPasswords: { type: 'boolean' },
        tokens: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'hash', 'role'],
            properties: { name: { type: 'string', minLength: 1 }, hash: { type: 'string', minLength: 1 }, role: { type: 'string', enum: ROLES } },
          },
        },
        jwt: {
          type: 'object',
          additionalProperties: false,
          required: ['jwks'],
          properties: {
            jwks: { type: 'string', minLength: 1 },
            issuer: stringOrStrings,
            audience: stringOrStrings,
            roleClaim: { type: 'string', minLength: 1 },
            algorithms: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
            allowTokensWithoutExpiry: { type: 'boolean' },
          },
        },
        failedLogins: {
          type: 'object',
          additionalProperties: false,
          properties: {
            perAddress: { type: 'integer', minimum: 1 },
            perUser: { type: 'integer', minimum: 1 },
            windowMs: { type: 'integer', minimum: 1 },
          },
        },
        cors: {
          type: 'object',
          additionalProperties: false,
          required: ['origins'],
          properties: { origins: { type: 'array', items: { type: 'string', pattern: '^https?://[^/]+$' } } },
        },
        tls: {
          type: 'object',
          additionalProperties: false,
          required: ['certificate', 'key'],
          properties: {
            certificate: { type: 'string', minLength: 1 },
            key: { type: 'string', minLength: 1 },
            keyPassword: { type: 'string' },
            clientCa: { type: 'string', minLength: 1 },
          },
        },
        allowUnauthenticated: { type: 'boolean' },
        sse: {
          type: 'object',
          additionalProperties: false,
          properties: {
            queueSize: { type: 'integer', minimum: 1 },
            keepaliveMs: { type: 'integer', minimum: 1 },
            metricsIntervalMs: { type: 'integer', minimum: 1 },
          },
        },
        timeouts: {
          type: 'object',
          additionalProperties: false,
          properties: {
            requestMs: { type: 'integer', minimum: 1 },
            headersMs: { type: 'integer', minimum: 1 },
            keepAliveMs: { type: 'integer', minimum: 1 },
          },
        },
        maxConnections: { type: 'integer', minimum: 1 },
      },
    },
    peers: {
      type: 'object',
      additionalProperties: false,
      properties: {
        secret: { type: 'string', minLength: 16 },
        tls: {
          type: 'object',
          additionalProperties: false,
          required: ['ca', 'certificate', 'key'],
          properties: { ca: { type: 'string', minLength: 1 }, certificate: { type: 'string', minLength: 1 }, key: { type: 'string', minLength: 1 } },
        },
      },
    },
    log: {
      type: 'object',
      additionalProperties: false,
      properties: {
        level: { type: 'string', enum: LOG_LEVELS },
        format: { type: 'string', enum: LOG_FORMATS },
        components: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(LOG_COMPONENTS.map((component) => [component, { type: 'string', enum: LOG_LEVELS }])),
        },
      },
    },
    streams: {
      ...scalarMap,
      required: ['bootstrap.servers'],
      properties: { 'bootstrap.servers': { type: 'string', minLength: 1 } },
    },
    topologies: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['module'],
        properties: { module: { type: 'string', minLength: 1 } },
      },
    },
    instances: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['topology'],
        properties: {
          topology: { type: 'string', minLength: 1 },
          version: { type: 'string', minLength: 1 },
          applicationId: { type: 'string', minLength: 1 },
          description: { type: 'string' },
          config: scalarMap,
        },
      },
    },
    shutdownTimeoutMs: { type: 'integer', minimum: 0 },
    memory: {
      type: 'object',
      additionalProperties: false,
      properties: {
        // Bytes, or a Kubernetes quantity with a binary or decimal suffix (512Mi, 1Gi, 500M).
        budget: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^[0-9]+(Ki|Mi|Gi|Ti|k|K|M|G|T)?$' }] },
      },
    },
  },
} as const;
