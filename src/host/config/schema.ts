/** The JSON schema of the host configuration file (after environment variables and flags are merged in). */

const scalar = { type: ['string', 'number', 'boolean'] } as const;
const scalarMap = { type: 'object', additionalProperties: scalar } as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

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
        users: { type: 'object', additionalProperties: { type: 'string' } },
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
      properties: { level: { type: 'string', enum: LOG_LEVELS } },
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
  },
} as const;
