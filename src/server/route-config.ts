/** What a route declares about itself in its `config`, read by the access hooks. */
export interface SluiceRouteConfig {
  /** Changes an instance (restart, stop, deploy, delete): refused in headless mode. */
  mutates?: boolean;
  /** Answers without credentials (the Kubernetes probes). */
  public?: boolean;
}

declare module 'fastify' {
  // Route configs are typed through this interface of fastify.
  interface FastifyContextConfig extends SluiceRouteConfig {}
}
