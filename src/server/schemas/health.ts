/** Schemas of `/health` and the Kubernetes probes. */

const healthStatus = { type: 'string', enum: ['UP', 'DOWN', 'UNKNOWN'] } as const;

export const healthReport = {
  type: 'object',
  required: ['status', 'details'],
  properties: {
    status: healthStatus,
    details: {
      type: 'object',
      required: ['applications'],
      properties: {
        applications: {
          type: 'object',
          required: ['name', 'status', 'details'],
          properties: {
            name: { type: 'string', enum: ['applications'] },
            status: healthStatus,
            details: {
              type: 'object',
              description: 'Application id to its status and state',
              additionalProperties: {
                type: 'object',
                required: ['status', 'details'],
                properties: {
                  status: healthStatus,
                  details: { type: 'object', required: ['state'], properties: { state: { type: 'string' } } },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

export const probe = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['UP', 'DOWN'] } },
} as const;
