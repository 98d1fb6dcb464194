/**
 * Every route with an `applicationId` path parameter refuses an id that no instance can have (400
 * InvalidApplicationId) before its handler runs: `..` or `a%2Fb` never reach a lookup, a stop, a cleanup or a peer.
 */

import type { FastifyInstance } from 'fastify';
import { checkApplicationId } from '../streams/runtime/application-id';

export function installApplicationIdCheck(app: FastifyInstance): void {
  // After authentication (onRequest), so that a client without credentials learns nothing from it.
  app.addHook('preValidation', async (request) => {
    const id = (request.params as { applicationId?: unknown } | undefined)?.applicationId;
    if (typeof id === 'string') checkApplicationId(id);
  });
}
