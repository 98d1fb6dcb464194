/**
 * Every route with an `applicationId` path parameter refuses an id that no instance can have (400
 * InvalidApplicationId) before its handler runs: `..` or `a%2Fb` never reach a lookup, a stop, a cleanup or a peer.
 */

import type { FastifyInstance } from 'fastify';
import { checkApplicationId } from '../streams/runtime/application-id';

export function installApplicationIdCheck(app: FastifyInstance): void {
  // After authentication (onRequest), so that a client without credentials learns nothing from it. A callback
  // hook, not an async one: every request passes here, and a promise per request costs more than the check.
  app.addHook('preValidation', (request, _reply, done) => {
    const id = (request.params as { applicationId?: unknown } | undefined)?.applicationId;
    try {
      if (typeof id === 'string') checkApplicationId(id);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}
